/**
 * An email share (spec §4.2 POST /shares) and its reminder. The share's stream decides, once
 * each, that its emails go out and that its reminder goes out: a restart or a second worker
 * can neither lose nor repeat either decision.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors.js';
import { EmailMessage, EmailQueuedFor } from '../../email/index.js';
import type { UseCaseInput } from '../../platform/use-case.js';
import type { LinkParameters } from '../../referral-links/index.js';
import type { ShareQuotaCommand } from './share-quota.js';
import { ReminderEmailCancelled, ReminderEmailSent, ShareCreated, ShareEvent } from './share-events.js';

export type ShareCommand =
  | ({ type: 'CreateShare'; reminderDueAt: Date | null; now: Date } & Omit<ShareCreated['data'], 'createdAt'>)
  | {
      type: 'SendShareEmails';
      shareId: number;
      messages: EmailMessage[];
      skippedOptedOut: string[];
      message: string | null;
      queuedFor: EmailQueuedFor;
      now: Date;
    }
  | { type: 'BlockShareEmails'; shareId: number; reason: string | null; now: Date }
  | {
      type: 'RecordInstructionsAttempt';
      shareId: number;
      statusCode: number | null;
      error: string | null;
      nextAttemptAt: Date | null;
      canSeeRecipients: boolean;
      now: Date;
    }
  | ({ type: 'SendReminder'; queuedFor: EmailQueuedFor; now: Date } & Omit<
      ReminderEmailSent['data'],
      'sentAt' | 'merchantId' | 'widgetId' | 'customerId' | 'advocateEmailAddress' | 'emailRecipientsCount' | 'queuedFor'
    >)
  | { type: 'CancelReminder'; shareId: number; reason: ReminderEmailCancelled['data']['reason']; now: Date };

type CreateShare = Extract<ShareCommand, { type: 'CreateShare' }>;

/**
 * A share as asked for: it differs from CreateShare in carrying the merchant's daily limits (its
 * quota step's), a link's parameters for its code, and no code, reminder time or (optionally) channel.
 */
export type ShareRequest = UseCaseInput<CreateShare, 'shareId' | 'referralCode' | 'reminderDueAt' | 'channel' | 'origin' | 'linkParameters'> &
  Partial<Pick<CreateShare, 'channel'>> &
  Required<Pick<CreateShare, 'origin'>> &
  Pick<ShareQuotaCommand, 'limits'> & { linkParameters: LinkParameters | null };

export interface ShareState {
  share: ShareCreated['data'] | null;
  emailsDecided: boolean;
  /** The share's emails were blocked by the merchant's client API (or its answer never came). */
  emailsBlocked: boolean;
  /** The message the share's emails went out with (the merchant's replacement, if it gave one). */
  sentMessage: string | null;
  /** The addresses the share's emails went to (its recipients less those opted out at the time). */
  emailedTo: string[];
  instructionAttempts: number;
  firstInstructionsAttemptAt: string | null;
  /** How the first instructions question was asked (whether it showed the recipients), for its retries. */
  instructionsCanSeeRecipients: boolean | null;
  reminderDueAt: string | null;
  reminderDone: boolean;
}

export const shareStream = (shareId: number) => `share-${shareId}`;

export const shareDecider: Decider<ShareCommand, ShareState, ShareEvent> = {
  initialState: () => ({
    share: null,
    emailsDecided: false,
    emailsBlocked: false,
    sentMessage: null,
    emailedTo: [],
    instructionAttempts: 0,
    firstInstructionsAttemptAt: null,
    instructionsCanSeeRecipients: null,
    reminderDueAt: null,
    reminderDone: false,
  }),

  decide(command, state) {
    const at = command.now.toISOString();
    if (command.type === 'CreateShare') {
      if (state.share) throw new ConflictError([`share ${command.shareId} already exists`]);
      if (command.channel === 'email' && command.emailRecipients.length === 0) {
        throw new BadRequestError([{ property: 'email_recipients', code: 'invalid', message: 'email_recipients must not be empty' }]);
      }
      // A social share sends nothing: the page posts its link on the channel.
      if (command.channel !== 'email' && command.emailRecipients.length > 0) {
        throw new BadRequestError([
          { property: 'email_recipients', code: 'invalid', message: `a ${command.channel} share has no email_recipients (only an email share sends emails)` },
        ]);
      }
      if (command.channel !== 'email' && command.sendReminder) {
        throw new BadRequestError([
          { property: 'send_reminder', code: 'invalid', message: `a ${command.channel} share has no reminder (only an email share sends emails)` },
        ]);
      }
      const { type: _type, now: _now, reminderDueAt, ...data } = command;
      const events: ShareEvent[] = [{ type: 'ShareCreated', data: { ...data, createdAt: at } }];
      if (command.sendReminder && reminderDueAt) {
        events.push({ type: 'ReminderEmailScheduled', data: { shareId: command.shareId, merchantId: command.merchantId, dueAt: reminderDueAt.toISOString() } });
      }
      return events;
    }
    const share = state.share;
    if (!share) throw new NotFoundError([`share ${command.shareId} not found`]);
    const base = { shareId: share.shareId, merchantId: share.merchantId };
    switch (command.type) {
      case 'SendShareEmails':
        if (state.emailsDecided) return [];
        return [
          {
            type: 'ShareEmailsSent',
            data: {
              ...base,
              messages: command.messages,
              skippedOptedOut: command.skippedOptedOut,
              message: command.message,
              sentAt: at,
              queuedFor: command.queuedFor,
              advocateEmailAddress: share.rewardEmailAddress,
              advocateCustomerId: share.customerId,
            },
          },
        ];
      case 'BlockShareEmails':
        if (state.emailsDecided) return [];
        return [{ type: 'ShareEmailsBlocked', data: { ...base, reason: command.reason, blockedAt: at } }];
      case 'RecordInstructionsAttempt':
        if (state.emailsDecided) return [];
        return [
          {
            type: 'ShareInstructionsAttempted',
            data: {
              ...base,
              attempt: state.instructionAttempts + 1,
              at,
              statusCode: command.statusCode,
              error: command.error,
              nextAttemptAt: command.nextAttemptAt?.toISOString() ?? null,
              canSeeRecipients: command.canSeeRecipients,
            },
          },
        ];
      case 'SendReminder':
      case 'CancelReminder': {
        if (state.reminderDueAt === null || state.reminderDone) return [];
        if (command.now.getTime() < Date.parse(state.reminderDueAt)) throw new ConflictError([`the reminder of share ${share.shareId} is not due yet`]);
        if (command.type === 'CancelReminder') return [{ type: 'ReminderEmailCancelled', data: { ...base, reason: command.reason, cancelledAt: at } }];
        // A reminder follows the share's own emails: not before they are decided, never after they were blocked.
        if (!state.emailsDecided) throw new ConflictError([`the emails of share ${share.shareId} are not decided yet`]);
        if (state.emailsBlocked) throw new ConflictError([`the emails of share ${share.shareId} were blocked`]);
        // A reminder reminds: nobody the share's emails did not reach (opted out then, even if not any more).
        const emailed = new Set(state.emailedTo.map((to) => to.toLowerCase()));
        const strangers = command.messages.filter((m) => !emailed.has(m.to.toLowerCase())).map((m) => m.to);
        if (strangers.length > 0) throw new ConflictError([`the emails of share ${share.shareId} did not go to ${strangers.join(', ')}`]);
        return [
          {
            type: 'ReminderEmailSent',
            data: {
              ...base,
              reminderEmailId: command.reminderEmailId,
              widgetId: share.widgetId,
              customerId: share.customerId,
              referralCode: command.referralCode,
              advocateEmailAddress: share.rewardEmailAddress,
              emailRecipientsCount: share.emailRecipients.length,
              messages: command.messages,
              sentAt: at,
              queuedFor: command.queuedFor,
            },
          },
        ];
      }
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ShareCreated':
        // A social share has no emails to decide.
        return { ...state, share: event.data, emailsDecided: event.data.channel !== 'email' };
      case 'ShareEmailsSent':
        return { ...state, emailsDecided: true, sentMessage: event.data.message, emailedTo: event.data.messages.map((m) => m.to) };
      case 'ShareEmailsBlocked':
        return { ...state, emailsDecided: true, emailsBlocked: true };
      case 'ShareInstructionsAttempted':
        return {
          ...state,
          instructionAttempts: event.data.attempt,
          firstInstructionsAttemptAt: state.firstInstructionsAttemptAt ?? event.data.at,
          instructionsCanSeeRecipients: state.instructionsCanSeeRecipients ?? event.data.canSeeRecipients ?? null,
        };
      case 'ReminderEmailScheduled':
        return { ...state, reminderDueAt: event.data.dueAt };
      case 'ReminderEmailSent':
      case 'ReminderEmailCancelled':
        return { ...state, reminderDone: true };
      default:
        return unreachable(event);
    }
  },
};

/**
 * The email a share or reminder sends: plain text with the advocate's message and link. Nothing
 * reads replies to it: a recipient stops these emails through the merchant, whose opt-out jobs
 * (POST /v2/email_opt_out_jobs) every later share and reminder honours, so that is what it says.
 */
export function composeShareEmail(input: {
  advocate: string;
  merchantName: string;
  widgetName: string;
  message: string | null;
  link: string;
  reminder: boolean;
}): { subject: string; text: string } {
  const subject = input.reminder ? `Reminder: ${input.advocate} sent you an offer` : `${input.advocate} sent you an offer: ${input.widgetName}`;
  const lines = [input.reminder ? `${input.advocate} shared an offer with you a few days ago.` : `${input.advocate} wants to share an offer with you.`];
  if (input.message) lines.push('', input.message);
  lines.push(
    '',
    `Claim it here: ${input.link}`,
    '',
    `You received this because someone you know shared an offer from ${input.merchantName} with you. To receive no more of these emails, ask ${input.merchantName} to stop them.`,
  );
  return { subject, text: lines.join('\n') };
}
