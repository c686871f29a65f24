/** What privacy publishes that other features read through declarations of their own: each must still match. */
import type { QueuedNotificationEmails } from '../email/domain/email-events.js';
import type { UserDataDeletionCompleted } from './domain/user-data-deletion.js';

/** Compiles only while the outbox's view covers the completion that queues the confirmation. */
const asOutboxReads = (event: UserDataDeletionCompleted): QueuedNotificationEmails => event;

describe('what privacy publishes', () => {
  it('the outbox reads the confirmation a completed erasure queued', () => {
    const message = { messageId: 'user-data-deletion-9', to: 'dpo@shop.example', subject: 's', text: 't' };
    const completed: UserDataDeletionCompleted = {
      type: 'UserDataDeletionCompleted',
      data: {
        jobId: 9,
        merchantId: 1,
        customerIds: [],
        emailAddressesCount: 1,
        keysDestroyed: 1,
        documentsScrubbed: 0,
        messages: [message],
        queuedFor: 'outbox',
        completedAt: '2026-05-01T10:00:00.000Z',
      },
    };
    expect(asOutboxReads(completed).data).toMatchObject({ jobId: 9, merchantId: 1, messages: [message], completedAt: '2026-05-01T10:00:00.000Z' });
  });
});
