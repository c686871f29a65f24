/** Events of shares and reminder emails (spec §2.2 ShareExcerpt, §2.3 Share, ReminderEmail). */
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { EmailMessage, EmailQueuedFor } from '../../email/index.js';

export const SHARE_CHANNELS = ['facebook', 'twitter', 'messenger', 'email'] as const;
export type ShareChannel = (typeof SHARE_CHANNELS)[number];

export type ShareOrigin = 'merchant' | 'customer_token';

export type ShareCreated = DomainEvent<
  'ShareCreated',
  {
    shareId: number;
    merchantId: number;
    widgetId: number;
    customerId: number | null;
    /** The share's own referral code (type `share`). */
    referralCode: string;
    channel: ShareChannel;
    message: string | null;
    rewardEmailAddress: string;
    emailRecipients: string[];
    newsletterOptIn: boolean;
    sendReminder: boolean;
    ipAddress: string | null;
    linkParameters: Record<string, unknown> | null;
    /** Who asked for it: a customer token's share follows the merchant's message policy (absent before it was kept: the merchant). */
    origin?: ShareOrigin;
    createdAt: string;
  }
>;

/**
 * The share's emails were decided (and queued for delivery, for the sender `queuedFor`: see
 * EmailQueuedFor; absent in events before it was kept); opted-out recipients skipped. The
 * advocate who sent them (the share's reward address and customer) names a data subject of the
 * messages; absent in events recorded before it was kept.
 */
export type ShareEmailsSent = DomainEvent<
  'ShareEmailsSent',
  {
    shareId: number;
    merchantId: number;
    messages: EmailMessage[];
    skippedOptedOut: string[];
    message: string | null;
    sentAt: string;
    queuedFor?: EmailQueuedFor;
    advocateEmailAddress?: string;
    advocateCustomerId?: number | null;
  }
>;

/** The merchant's share-instructions callback blocked the share's emails. */
export type ShareEmailsBlocked = DomainEvent<'ShareEmailsBlocked', { shareId: number; merchantId: number; reason: string | null; blockedAt: string }>;

export type ReminderEmailScheduled = DomainEvent<'ReminderEmailScheduled', { shareId: number; merchantId: number; dueAt: string }>;

export type ReminderEmailSent = DomainEvent<
  'ReminderEmailSent',
  {
    reminderEmailId: number;
    shareId: number;
    merchantId: number;
    widgetId: number;
    customerId: number | null;
    referralCode: string;
    advocateEmailAddress: string;
    /** Recipients of the original share (spec: email_recipients_count). */
    emailRecipientsCount: number;
    messages: EmailMessage[];
    sentAt: string;
    /** The sender its messages were queued for (EmailQueuedFor); absent in events before it was kept. */
    queuedFor?: EmailQueuedFor;
  }
>;

/** The merchant's share-instructions callback did not answer 200; `nextAttemptAt` null: given up. */
export type ShareInstructionsAttempted = DomainEvent<
  'ShareInstructionsAttempted',
  {
    shareId: number;
    merchantId: number;
    attempt: number;
    at: string;
    statusCode: number | null;
    error: string | null;
    nextAttemptAt: string | null;
    /** Whether the question showed the recipients: every retry asks the same question (absent in events before it was kept). */
    canSeeRecipients?: boolean;
  }
>;

/**
 * The reminder was due and will not go out. `no_recipients`: every recipient converted or opted out;
 * `share_emails_blocked`: the share's own emails were blocked (client API), so no reminder follows them;
 * `share_code_blacklisted`: the share's code was blacklisted, and a reminder would bring the offer back
 * under a new code; `advocate_erased`: the advocate's data was erased (docs/privacy.md), and nothing more goes out in their name.
 */
export type ReminderEmailCancelled = DomainEvent<
  'ReminderEmailCancelled',
  { shareId: number; merchantId: number; reason: 'no_recipients' | 'share_emails_blocked' | 'share_code_blacklisted' | 'advocate_erased'; cancelledAt: string }
>;

export type ShareEvent =
  ShareCreated | ShareEmailsSent | ShareEmailsBlocked | ShareInstructionsAttempted | ReminderEmailScheduled | ReminderEmailSent | ReminderEmailCancelled;
