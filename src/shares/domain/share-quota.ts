/**
 * A merchant's share sending quota for one UTC day: how many email recipients its shares have
 * addressed, in all and per advocate customer. One stream per merchant and day, decided in the same
 * commit as the share, so the limits hold across processes and restarts (the expected revision
 * refuses a writer that counted on a stale total). Pure: limits and time arrive in the command.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { retryAfter, TooManyRequestsError } from '../../platform/errors.js';

export type ShareRecipientsReserved = DomainEvent<
  'ShareRecipientsReserved',
  { merchantId: number; day: string; shareId: number; customerId: number | null; recipients: number; reservedAt: string }
>;

export type ShareQuotaEvent = ShareRecipientsReserved;

export interface ShareQuotaCommand {
  type: 'ReserveShareRecipients';
  merchantId: number;
  shareId: number;
  customerId: number | null;
  recipients: number;
  limits: { perCustomer: number; perMerchant: number };
  now: Date;
}

export interface ShareQuotaState {
  total: number;
  /** Recipients per advocate customer id. */
  perCustomer: Record<string, number>;
}

/** The UTC day a quota counts in (`2026-11-28`). */
export const quotaDay = (now: Date) => now.toISOString().slice(0, 10);

export const shareQuotaStream = (merchantId: number, day: string) => `share-quota-${merchantId}-${day}`;

/** Whole seconds until the next UTC midnight, when the day's counts start again (at least 1). */
export function secondsToNextDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

function refuse(now: Date, message: string): TooManyRequestsError {
  return new TooManyRequestsError([message], retryAfter(secondsToNextDay(now)));
}

export const shareQuotaDecider: Decider<ShareQuotaCommand, ShareQuotaState, ShareQuotaEvent> = {
  initialState: () => ({ total: 0, perCustomer: {} }),

  decide(command, state) {
    switch (command.type) {
      case 'ReserveShareRecipients': {
        const { recipients, limits, customerId, now } = command;
        if (customerId !== null) {
          const used = state.perCustomer[customerId] ?? 0;
          if (used + recipients > limits.perCustomer) {
            throw refuse(
              now,
              `share recipient limit reached: ${limits.perCustomer} email recipients per customer per day (UTC); this customer has used ${used} today and this share has ${recipients}`,
            );
          }
        }
        if (state.total + recipients > limits.perMerchant) {
          throw refuse(
            now,
            `share recipient limit reached: ${limits.perMerchant} email recipients per merchant per day (UTC); ${state.total} used today and this share has ${recipients}`,
          );
        }
        return [
          {
            type: 'ShareRecipientsReserved',
            data: { merchantId: command.merchantId, day: quotaDay(now), shareId: command.shareId, customerId, recipients, reservedAt: now.toISOString() },
          },
        ];
      }
      default:
        return unreachable(command.type);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ShareRecipientsReserved': {
        const { customerId, recipients } = event.data;
        const perCustomer = customerId === null ? state.perCustomer : { ...state.perCustomer, [customerId]: (state.perCustomer[customerId] ?? 0) + recipients };
        return { total: state.total + recipients, perCustomer };
      }
      default:
        return unreachable(event.type);
    }
  },
};
