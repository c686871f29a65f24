import { ConflictError, NotFoundError, BadRequestError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { fold } from '../../platform/decider.js';
import { ShareCreated, ShareEvent } from './share-events.js';
import { composeShareEmail, shareDecider } from './share.js';

const t0 = new Date('2026-05-01T10:00:00.000Z');
const due = new Date('2026-05-04T10:00:00.000Z');
const created: ShareCreated = {
  type: 'ShareCreated',
  data: {
    shareId: 7,
    merchantId: 1,
    widgetId: 3,
    customerId: 11,
    referralCode: 'abcd2345',
    channel: 'email',
    message: 'Try this',
    rewardEmailAddress: 'ann@example.com',
    emailRecipients: ['bob@example.com', 'cy@example.com'],
    newsletterOptIn: false,
    sendReminder: true,
    ipAddress: '203.0.113.9',
    linkParameters: null,
    createdAt: t0.toISOString(),
  },
};
const scheduled: ShareEvent = { type: 'ReminderEmailScheduled', data: { shareId: 7, merchantId: 1, dueAt: due.toISOString() } };
const message = { messageId: 'm1', to: 'bob@example.com', subject: 's', text: 't' };

describe('share decider', () => {
  it('creates a share and schedules its reminder when asked', () => {
    const { type: _t, createdAt: _c, ...rest } = { type: 'x', ...created.data };
    given(shareDecider, [])
      .when({ type: 'CreateShare', ...rest, reminderDueAt: due, now: t0 })
      .then([created, scheduled]);
  });

  it('schedules no reminder when send_reminder is false, and refuses an empty recipient list', () => {
    const { createdAt: _c, ...rest } = created.data;
    const events = given(shareDecider, [])
      .when({ type: 'CreateShare', ...rest, sendReminder: false, reminderDueAt: due, now: t0 })
      .events();
    expect(events.map((e) => e.type)).toEqual(['ShareCreated']);
    given(shareDecider, [])
      .when({ type: 'CreateShare', ...rest, emailRecipients: [], reminderDueAt: null, now: t0 })
      .thenThrows(BadRequestError);
  });

  it('creates a social share with no recipients and no reminder, whose emails are decided (none) from the start', () => {
    const { createdAt: _c, ...rest } = created.data;
    const social = { ...rest, channel: 'facebook' as const, emailRecipients: [], message: null, sendReminder: false };
    const events = given(shareDecider, [])
      .when({ type: 'CreateShare', ...social, reminderDueAt: null, now: t0 })
      .events();
    expect(events).toEqual([{ type: 'ShareCreated', data: { ...social, createdAt: t0.toISOString() } }]);
    const state = fold(shareDecider, events);
    expect([state.emailsDecided, state.reminderDueAt]).toEqual([true, null]);
    given(shareDecider, events)
      .when({ type: 'SendShareEmails', shareId: 7, messages: [message], skippedOptedOut: [], message: null, queuedFor: 'smtp', now: t0 })
      .then([]);
    given(shareDecider, [])
      .when({ type: 'CreateShare', ...social, emailRecipients: ['bob@example.com'], reminderDueAt: null, now: t0 })
      .thenThrows(BadRequestError);
    given(shareDecider, [])
      .when({ type: 'CreateShare', ...social, sendReminder: true, reminderDueAt: due, now: t0 })
      .thenThrows(BadRequestError);
  });

  it('decides the share emails once, recording the sender they are queued for', () => {
    const sent: ShareEvent = {
      type: 'ShareEmailsSent',
      data: {
        shareId: 7,
        merchantId: 1,
        messages: [message],
        skippedOptedOut: ['cy@example.com'],
        message: 'Try this',
        sentAt: t0.toISOString(),
        queuedFor: 'smtp',
        advocateEmailAddress: 'ann@example.com',
        advocateCustomerId: 11,
      },
    };
    given(shareDecider, [created])
      .when({ type: 'SendShareEmails', shareId: 7, messages: [message], skippedOptedOut: ['cy@example.com'], message: 'Try this', queuedFor: 'smtp', now: t0 })
      .then([sent]);
    given(shareDecider, [created, sent])
      .when({ type: 'SendShareEmails', shareId: 7, messages: [message], skippedOptedOut: [], message: null, queuedFor: 'outbox', now: t0 })
      .then([]);
    given(shareDecider, [created, sent]).when({ type: 'BlockShareEmails', shareId: 7, reason: 'no', now: t0 }).then([]);
  });

  const sent: ShareEvent = {
    type: 'ShareEmailsSent',
    data: { shareId: 7, merchantId: 1, messages: [message], skippedOptedOut: [], message: 'Try this', sentAt: t0.toISOString() },
  };

  it("reminds only addresses the share's emails went to", () => {
    const command = { type: 'SendReminder' as const, shareId: 7, reminderEmailId: 99, referralCode: 'rem23456', queuedFor: 'outbox' as const, now: due };
    const toCy = { ...message, messageId: 'm2', to: 'cy@example.com' };
    // cy was a recipient, but opted out when the share's emails went: the reminder may not go there.
    given(shareDecider, [created, scheduled, sent])
      .when({ ...command, messages: [message, toCy] })
      .thenThrows(ConflictError);
    expect(
      given(shareDecider, [created, scheduled, sent])
        .when({ ...command, messages: [{ ...message, to: 'BOB@example.com' }] })
        .events(),
    ).toHaveLength(1);
  });

  it('sends the reminder once, only when due, with the share facts and the sender it is queued for', () => {
    const command = {
      type: 'SendReminder' as const,
      shareId: 7,
      reminderEmailId: 99,
      referralCode: 'rem23456',
      messages: [message],
      queuedFor: 'smtp' as const,
      now: due,
    };
    given(shareDecider, [created, scheduled, sent])
      .when({ ...command, now: new Date(due.getTime() - 1) })
      .thenThrows(ConflictError);
    const events = given(shareDecider, [created, scheduled, sent]).when(command).events();
    expect(events).toEqual([
      {
        type: 'ReminderEmailSent',
        data: {
          shareId: 7,
          merchantId: 1,
          reminderEmailId: 99,
          widgetId: 3,
          customerId: 11,
          referralCode: 'rem23456',
          advocateEmailAddress: 'ann@example.com',
          emailRecipientsCount: 2,
          messages: [message],
          sentAt: due.toISOString(),
          queuedFor: 'smtp',
        },
      },
    ]);
    given(shareDecider, [created, scheduled, sent, events[0]]).when(command).then([]);
    given(shareDecider, [created]).when(command).then([]);
  });

  it('sends no reminder before the share emails are decided, nor after they were blocked', () => {
    const command = {
      type: 'SendReminder' as const,
      shareId: 7,
      reminderEmailId: 99,
      referralCode: 'rem23456',
      messages: [message],
      queuedFor: 'outbox' as const,
      now: due,
    };
    given(shareDecider, [created, scheduled]).when(command).thenThrows(ConflictError);
    const blocked: ShareEvent = { type: 'ShareEmailsBlocked', data: { shareId: 7, merchantId: 1, reason: 'not allowed', blockedAt: t0.toISOString() } };
    given(shareDecider, [created, scheduled, blocked]).when(command).thenThrows(ConflictError);
    given(shareDecider, [created, scheduled, blocked])
      .when({ type: 'CancelReminder', shareId: 7, reason: 'share_emails_blocked', now: due })
      .then([{ type: 'ReminderEmailCancelled', data: { shareId: 7, merchantId: 1, reason: 'share_emails_blocked', cancelledAt: due.toISOString() } }]);
  });

  it('cancels a due reminder with nobody left to write to, once', () => {
    const cancelled: ShareEvent = {
      type: 'ReminderEmailCancelled',
      data: { shareId: 7, merchantId: 1, reason: 'no_recipients', cancelledAt: due.toISOString() },
    };
    given(shareDecider, [created, scheduled]).when({ type: 'CancelReminder', shareId: 7, reason: 'no_recipients', now: due }).then([cancelled]);
    given(shareDecider, [created, scheduled, cancelled]).when({ type: 'CancelReminder', shareId: 7, reason: 'no_recipients', now: due }).then([]);
  });

  it('counts share-instructions attempts until the emails are decided', () => {
    const next = new Date('2026-05-01T11:00:00.000Z');
    const attempt = {
      type: 'ShareInstructionsAttempted' as const,
      data: {
        shareId: 7,
        merchantId: 1,
        attempt: 1,
        at: t0.toISOString(),
        statusCode: 500,
        error: null,
        nextAttemptAt: next.toISOString(),
        canSeeRecipients: false,
      },
    };
    given(shareDecider, [created])
      .when({ type: 'RecordInstructionsAttempt', shareId: 7, statusCode: 500, error: null, nextAttemptAt: next, canSeeRecipients: false, now: t0 })
      .then([attempt]);
    const second = given(shareDecider, [created, attempt])
      .when({ type: 'RecordInstructionsAttempt', shareId: 7, statusCode: null, error: 'timeout', nextAttemptAt: null, canSeeRecipients: false, now: t0 })
      .events();
    expect(second[0].data).toMatchObject({ attempt: 2, nextAttemptAt: null });
    // The first attempt fixes how the question is asked: its retries ask it the same way.
    expect(fold(shareDecider, [created, attempt]).instructionsCanSeeRecipients).toBe(false);
    expect(fold(shareDecider, [created]).instructionsCanSeeRecipients).toBeNull();
    const blocked = {
      type: 'ShareEmailsBlocked' as const,
      data: { shareId: 7, merchantId: 1, reason: 'share_instructions_unavailable', blockedAt: t0.toISOString() },
    };
    given(shareDecider, [created, attempt, blocked])
      .when({ type: 'RecordInstructionsAttempt', shareId: 7, statusCode: 500, error: null, nextAttemptAt: next, canSeeRecipients: false, now: t0 })
      .then([]);
  });

  it('tells the recipient to ask the merchant to stop the emails, not to reply (nothing reads replies)', () => {
    for (const reminder of [false, true]) {
      const { text } = composeShareEmail({
        advocate: 'ann@example.com',
        merchantName: 'Outdoor Co',
        widgetName: 'Give $10',
        message: null,
        link: 'https://r.example/l/abcd2345',
        reminder,
      });
      expect(text).not.toMatch(/reply|\bSTOP\b/);
      expect(text).toContain('ask Outdoor Co to stop them');
    }
  });

  it('knows no share it was not told about', () => {
    given(shareDecider, [])
      .when({ type: 'SendShareEmails', shareId: 7, messages: [], skippedOptedOut: [], message: null, queuedFor: 'outbox', now: t0 })
      .thenThrows(NotFoundError);
  });
});
