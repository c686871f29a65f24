import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { userDataDeletionDecider } from './user-data-deletion.js';

const now = new Date('2026-05-01T00:00:00.000Z');
const at = now.toISOString();

const requested = {
  type: 'UserDataDeletionRequested' as const,
  data: {
    jobId: 7,
    merchantId: 1,
    emailAddresses: ['ann@example.com'],
    customerIds: [3],
    accountIds: ['acc-1'],
    notificationEmail: 'privacy@shop.example',
    emailAddressesCount: 1,
    accountIdsCount: 1,
    requestedAt: at,
  },
};
const scrub = { customers: { '000000000003': ['email'] } };
const erased = { type: 'PersonalDataErased' as const, data: { jobId: 7, merchantId: 1, scrub, erasedAt: at } };
const message = { messageId: 'user-data-deletion-7', to: 'privacy@shop.example', subject: 's', text: 't' };
const complete = {
  type: 'CompleteUserDataDeletion' as const,
  jobId: 7,
  merchantId: 1,
  customerIds: [3],
  keysDestroyed: 2,
  messages: [message],
  queuedFor: 'outbox' as const,
  now,
};

describe('user data deletion decider', () => {
  it('records a request with distinct, normalised addresses and ids, counted in the clear', () => {
    given(userDataDeletionDecider, [])
      .when({
        type: 'RequestUserDataDeletion',
        jobId: 7,
        merchantId: 1,
        emailAddresses: [' Ann@Example.com', 'ann@example.com'],
        customerIds: [3, 3],
        accountIds: ['acc-1', 'acc-1'],
        notificationEmail: ' privacy@shop.example ',
        now,
      })
      .then([requested]);
    given(userDataDeletionDecider, [requested])
      .when({
        type: 'RequestUserDataDeletion',
        jobId: 7,
        merchantId: 1,
        emailAddresses: ['a@b.co'],
        customerIds: [],
        accountIds: [],
        notificationEmail: null,
        now,
      })
      .thenThrows(ConflictError);
  });

  it('records the erasure once, and only for the job of that merchant', () => {
    given(userDataDeletionDecider, [requested]).when({ type: 'RecordErasure', jobId: 7, merchantId: 1, scrub, now }).then([erased]);
    given(userDataDeletionDecider, [requested, erased]).when({ type: 'RecordErasure', jobId: 7, merchantId: 1, scrub, now }).then([]);
    given(userDataDeletionDecider, [requested]).when({ type: 'RecordErasure', jobId: 7, merchantId: 2, scrub, now }).thenThrows(NotFoundError);
    given(userDataDeletionDecider, []).when({ type: 'RecordErasure', jobId: 7, merchantId: 1, scrub, now }).thenThrows(NotFoundError);
  });

  it('completes once, with the documents the erasure scrubbed', () => {
    const completed = {
      type: 'UserDataDeletionCompleted' as const,
      data: {
        jobId: 7,
        merchantId: 1,
        customerIds: [3],
        emailAddressesCount: 1,
        keysDestroyed: 2,
        documentsScrubbed: 1,
        messages: [message],
        queuedFor: 'outbox' as const,
        completedAt: at,
      },
    };
    given(userDataDeletionDecider, [requested, erased]).when(complete).then([completed]);
    given(userDataDeletionDecider, [requested, erased, completed]).when(complete).then([]);
    given(userDataDeletionDecider, []).when(complete).thenThrows(NotFoundError);
  });
});
