/** What shares publish that other features read through declarations of their own: each must still match. */
import { V1_SHARE_NETWORKS } from '../customers/http/v1-activity.schemas.js';
import type { QueuedShareEmails } from '../email/domain/email-events.js';
import { SHARE_CHANNELS, type ReminderEmailSent, type ShareEmailsSent } from './domain/share-events.js';

/** Compiles only while the outbox's view covers both events that queue a share's emails. */
const asOutboxReads = (event: ShareEmailsSent | ReminderEmailSent): QueuedShareEmails => event;

describe('what shares publish', () => {
  it('the v1 ShareExcerpt schema (customers) names exactly the share channels', () => {
    expect([...V1_SHARE_NETWORKS]).toEqual([...SHARE_CHANNELS]);
  });

  it('the outbox reads the messages a share queued', () => {
    const sent: ShareEmailsSent = {
      type: 'ShareEmailsSent',
      data: { shareId: 4, merchantId: 1, messages: [], skippedOptedOut: [], message: null, sentAt: '2026-05-01T10:00:00.000Z' },
    };
    expect(asOutboxReads(sent).data).toMatchObject({ shareId: 4, merchantId: 1, messages: [] });
  });
});
