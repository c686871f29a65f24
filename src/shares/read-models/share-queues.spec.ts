import { ProjectedLog } from '../../../test/support/projection-spec.js';
import { DueDoc } from '../../platform/projections/due-queue.js';
import { remindersDueProjection, shareEmailsDueProjection } from './share-queues.js';

const created = (shareId: number, createdAt: string) => ({
  shareId,
  merchantId: 1,
  widgetId: 2,
  customerId: 3,
  referralCode: 'abc',
  channel: 'email',
  message: null,
  rewardEmailAddress: 'a@example.com',
  emailRecipients: ['f@example.com'],
  newsletterOptIn: false,
  sendReminder: true,
  ipAddress: null,
  linkParameters: null,
  createdAt,
});
const attempt = (shareId: number, at: string, nextAttemptAt: string | null) => ({
  shareId,
  merchantId: 1,
  attempt: 1,
  at,
  statusCode: 500,
  error: null,
  nextAttemptAt,
  canSeeRecipients: false,
});

describe("share pollers' queues", () => {
  let log: ProjectedLog;
  const due = (collection: 'emails' | 'reminders') => async () => {
    const def = collection === 'emails' ? shareEmailsDueProjection.collection : remindersDueProjection.collection;
    return (await log.collection<DueDoc>(def).list({ limit: 100 })).map((d) => [d.id, d.due_at]);
  };
  beforeEach(() => {
    log = new ProjectedLog([shareEmailsDueProjection, remindersDueProjection]);
  });
  afterEach(() => log.close());

  it("hold a share's emails from its creation, then at each retry of its instructions, until they are sent or blocked", async () => {
    const emails = due('emails');
    await log.apply(
      ['share-1', 'ShareCreated', created(1, '2026-05-01T10:00:00.000Z')],
      ['share-2', 'ShareCreated', created(2, '2026-05-01T10:00:01.000Z')],
      ['share-3', 'ShareCreated', created(3, '2026-05-01T10:00:02.000Z')],
    );
    await log.apply(
      ['share-1', 'ShareInstructionsAttempted', attempt(1, '2026-05-01T10:00:03.000Z', '2026-05-01T10:10:00.000Z')],
      ['share-2', 'ShareInstructionsAttempted', attempt(2, '2026-05-01T10:00:04.000Z', null)],
    );
    expect(await emails()).toEqual([
      [3, '2026-05-01T10:00:02.000Z'],
      [2, '2026-05-01T10:00:04.000Z'],
      [1, '2026-05-01T10:10:00.000Z'],
    ]);
    await log.apply(
      ['share-1', 'ShareEmailsSent', { shareId: 1, merchantId: 1, messages: [], skippedOptedOut: [], message: null, sentAt: '2026-05-01T10:10:01.000Z' }],
      ['share-2', 'ShareEmailsBlocked', { shareId: 2, merchantId: 1, reason: null, blockedAt: '2026-05-01T10:10:01.000Z' }],
    );
    expect(await emails()).toEqual([[3, '2026-05-01T10:00:02.000Z']]);
  });

  it('hold a reminder at its time until it is sent or cancelled', async () => {
    const reminders = due('reminders');
    await log.apply(['share-1', 'ShareCreated', created(1, '2026-05-01T10:00:00.000Z')]);
    expect(await reminders()).toEqual([]);
    await log.apply(
      ['share-1', 'ReminderEmailScheduled', { shareId: 1, merchantId: 1, dueAt: '2026-05-04T10:00:00.000Z' }],
      ['share-2', 'ReminderEmailScheduled', { shareId: 2, merchantId: 1, dueAt: '2026-05-02T10:00:00.000Z' }],
    );
    expect(await reminders()).toEqual([
      [2, '2026-05-02T10:00:00.000Z'],
      [1, '2026-05-04T10:00:00.000Z'],
    ]);
    await log.apply(['share-2', 'ReminderEmailCancelled', { shareId: 2, merchantId: 1, reason: 'no_recipients', cancelledAt: '2026-05-02T10:00:00.000Z' }]);
    await log.apply(['share-1', 'ReminderEmailSent', { shareId: 1, merchantId: 1, sentAt: '2026-05-04T10:00:00.000Z' }]);
    expect(await reminders()).toEqual([]);
  });
});
