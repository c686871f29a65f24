/**
 * Erasure of a person's data at a merchant's request (POST /v2/user_data/delete, docs/privacy.md):
 * a job, accepted at once and carried out in the background. Its stream records the request, the
 * erasure (which read-model documents were scrubbed) and the completion.
 */
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { Decider, unreachable } from '../../platform/decider.js';
import type { DomainEvent } from '../../platform/event-store/event-store.js';
import { normaliseAddress } from '../../platform/personal-data/personal-fields.js';
import type { PersonalDataErased, ScrubPlan } from '../../platform/personal-data/read-model-erasure.js';
import type { EmailMessage, EmailQueuedFor } from '../../email/index.js';

/**
 * The request. Its addresses and account ids are sealed under the job's own key (personal-data.ts),
 * not under the addresses' keys, so that a job a restart interrupted can still read what to erase;
 * the job's key is destroyed when it completes.
 */
export type UserDataDeletionRequested = DomainEvent<
  'UserDataDeletionRequested',
  {
    jobId: number;
    merchantId: number;
    emailAddresses: string[];
    customerIds: number[];
    accountIds: string[];
    notificationEmail: string | null;
    /** Counted in the clear: the job's answers keep them after its key is gone. */
    emailAddressesCount: number;
    accountIdsCount: number;
    requestedAt: string;
  }
>;

/**
 * Done: the customers it erased (the service's ids), how many subjects' keys it destroyed, and the
 * confirmation to the notification address, if one was given (queued for the sender `queuedFor`).
 */
export type UserDataDeletionCompleted = DomainEvent<
  'UserDataDeletionCompleted',
  {
    jobId: number;
    merchantId: number;
    customerIds: number[];
    emailAddressesCount: number;
    keysDestroyed: number;
    documentsScrubbed: number;
    messages: EmailMessage[];
    queuedFor?: EmailQueuedFor;
    completedAt: string;
  }
>;

export type UserDataDeletionEvent = UserDataDeletionRequested | PersonalDataErased | UserDataDeletionCompleted;

export type UserDataDeletionCommand =
  | ({ type: 'RequestUserDataDeletion'; now: Date } & Omit<UserDataDeletionRequested['data'], 'emailAddressesCount' | 'accountIdsCount' | 'requestedAt'>)
  | { type: 'RecordErasure'; jobId: number; merchantId: number; scrub: ScrubPlan; now: Date }
  | {
      type: 'CompleteUserDataDeletion';
      jobId: number;
      merchantId: number;
      customerIds: number[];
      keysDestroyed: number;
      messages: EmailMessage[];
      queuedFor: EmailQueuedFor;
      now: Date;
    };

export interface UserDataDeletionState {
  requested: UserDataDeletionRequested['data'] | null;
  erasure: PersonalDataErased['data'] | null;
  completed: boolean;
}

export const userDataDeletionStream = (jobId: number) => `user-data-deletion-${jobId}`;

/** Documents a scrub plan touches, over every collection. */
export const documentsIn = (scrub: ScrubPlan): number => Object.values(scrub).reduce((n, docs) => n + Object.keys(docs).length, 0);

export const userDataDeletionDecider: Decider<UserDataDeletionCommand, UserDataDeletionState, UserDataDeletionEvent> = {
  initialState: () => ({ requested: null, erasure: null, completed: false }),
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'RequestUserDataDeletion': {
        if (state.requested) throw new ConflictError([`user data deletion ${command.jobId} already exists`]);
        const emailAddresses = [...new Set(command.emailAddresses.map(normaliseAddress))];
        const customerIds = [...new Set(command.customerIds)];
        const accountIds = [...new Set(command.accountIds)];
        return [
          {
            type: 'UserDataDeletionRequested',
            data: {
              jobId: command.jobId,
              merchantId: command.merchantId,
              emailAddresses,
              customerIds,
              accountIds,
              notificationEmail: command.notificationEmail === null ? null : command.notificationEmail.trim(),
              emailAddressesCount: emailAddresses.length,
              accountIdsCount: accountIds.length,
              requestedAt: at,
            },
          },
        ];
      }
      case 'RecordErasure':
        if (!state.requested || state.requested.merchantId !== command.merchantId) throw new NotFoundError([`user data deletion ${command.jobId} not found`]);
        if (state.erasure || state.completed) return [];
        return [{ type: 'PersonalDataErased', data: { jobId: command.jobId, merchantId: command.merchantId, scrub: command.scrub, erasedAt: at } }];
      case 'CompleteUserDataDeletion':
        if (!state.requested || state.requested.merchantId !== command.merchantId) throw new NotFoundError([`user data deletion ${command.jobId} not found`]);
        if (state.completed) return [];
        return [
          {
            type: 'UserDataDeletionCompleted',
            data: {
              jobId: command.jobId,
              merchantId: command.merchantId,
              customerIds: command.customerIds,
              emailAddressesCount: state.requested.emailAddressesCount,
              keysDestroyed: command.keysDestroyed,
              documentsScrubbed: state.erasure ? documentsIn(state.erasure.scrub) : 0,
              messages: command.messages,
              queuedFor: command.queuedFor,
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
      case 'UserDataDeletionRequested':
        return { ...state, requested: event.data };
      case 'PersonalDataErased':
        return { ...state, erasure: event.data };
      case 'UserDataDeletionCompleted':
        return { ...state, completed: true };
      default:
        return unreachable(event);
    }
  },
};
