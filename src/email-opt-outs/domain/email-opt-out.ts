/**
 * Email opt-outs (not shown in the spec): per merchant and address, a stream that says
 * whether the address is opted out; and batch jobs that opt out many addresses asynchronously.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { EmailOptedOut, EmailOptOutRemoved } from './email-opt-out-events.js';

/** `emailKey`: the address's keyed hash, which the events carry (EmailOptedOut). */
export type OptOutCommand =
  | { type: 'OptOut'; merchantId: number; emailAddress: string; jobId: number | null; now: Date; emailKey?: string }
  | { type: 'RemoveOptOut'; merchantId: number; emailAddress: string; now: Date; emailKey?: string };

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * Named after the address's keyed hash (`PersonalDataEventStore.emailKey`), never the address: a
 * stream name is not encrypted. `k` keeps these apart from the names logs had before (base64url
 * of the address, which never begins with `k`).
 */
export const optOutStream = (merchantId: number, emailKey: string) => `email-opt-out-${merchantId}-k${emailKey}`;

/** `byJob`: the opt-out job that opted the address out, if one did (a job resumed after a restart counts its own). */
export const optOutDecider: Decider<OptOutCommand, { optedOut: boolean; byJob: number | null }, EmailOptedOut | EmailOptOutRemoved> = {
  initialState: () => ({ optedOut: false, byJob: null }),
  decide(command, state) {
    const emailAddress = normaliseEmail(command.emailAddress);
    const key = command.emailKey === undefined ? {} : { emailKey: command.emailKey };
    switch (command.type) {
      case 'OptOut':
        return state.optedOut
          ? []
          : [
              {
                type: 'EmailOptedOut',
                data: { merchantId: command.merchantId, emailAddress, jobId: command.jobId, optedOutAt: command.now.toISOString(), ...key },
              },
            ];
      case 'RemoveOptOut':
        if (!state.optedOut) throw new NotFoundError([`${emailAddress} is not opted out`]);
        return [{ type: 'EmailOptOutRemoved', data: { merchantId: command.merchantId, emailAddress, removedAt: command.now.toISOString(), ...key } }];
      default:
        return unreachable(command);
    }
  },
  evolve(_state, event) {
    return event.type === 'EmailOptedOut' ? { optedOut: true, byJob: event.data.jobId } : { optedOut: false, byJob: null };
  },
};

export type EmailOptOutJobSubmitted = DomainEvent<
  'EmailOptOutJobSubmitted',
  { jobId: number; merchantId: number; emailAddresses: string[]; submittedAt: string }
>;
export type EmailOptOutJobCompleted = DomainEvent<
  'EmailOptOutJobCompleted',
  { jobId: number; merchantId: number; optedOutCount: number; alreadyOptedOutCount: number; completedAt: string }
>;
export type OptOutJobEvent = EmailOptOutJobSubmitted | EmailOptOutJobCompleted;

export type OptOutJobCommand =
  | { type: 'SubmitOptOutJob'; jobId: number; merchantId: number; emailAddresses: string[]; now: Date }
  | { type: 'CompleteOptOutJob'; jobId: number; merchantId: number; optedOutCount: number; alreadyOptedOutCount: number; now: Date };

export interface OptOutJobState {
  submitted: EmailOptOutJobSubmitted['data'] | null;
  completed: boolean;
}

export const optOutJobStream = (jobId: number) => `email-opt-out-job-${jobId}`;

export const optOutJobDecider: Decider<OptOutJobCommand, OptOutJobState, OptOutJobEvent> = {
  initialState: () => ({ submitted: null, completed: false }),
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'SubmitOptOutJob': {
        if (state.submitted) throw new ConflictError([`opt-out job ${command.jobId} already exists`]);
        const emailAddresses = [...new Set(command.emailAddresses.map(normaliseEmail))];
        return [{ type: 'EmailOptOutJobSubmitted', data: { jobId: command.jobId, merchantId: command.merchantId, emailAddresses, submittedAt: at } }];
      }
      case 'CompleteOptOutJob':
        if (!state.submitted || state.submitted.merchantId !== command.merchantId) throw new NotFoundError([`opt-out job ${command.jobId} not found`]);
        if (state.completed) return [];
        return [
          {
            type: 'EmailOptOutJobCompleted',
            data: {
              jobId: command.jobId,
              merchantId: command.merchantId,
              optedOutCount: command.optedOutCount,
              alreadyOptedOutCount: command.alreadyOptedOutCount,
              completedAt: at,
            },
          },
        ];
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'EmailOptOutJobSubmitted':
        return { ...state, submitted: event.data };
      case 'EmailOptOutJobCompleted':
        return { ...state, completed: true };
      default:
        return unreachable(event);
    }
  },
};
