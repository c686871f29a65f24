/**
 * Outgoing email. The decision to send (which messages, to whom) is an event of the feature
 * that sends (a share, a reminder); delivery through the email port is recorded once per
 * message in its own stream created with "no stream" expected, so a message is marked
 * delivered at most once.
 */
import { DomainEvent } from '../../platform/event-store/event-store.js';

export interface EmailMessage {
  messageId: string;
  to: string;
  subject: string;
  text: string;
}

/** A sender: `smtp` (SMTP_URL set: sent) or `outbox` (no SMTP_URL, or the sandbox: kept in the outbox, nothing sent). */
export const EMAIL_SENDERS = ['smtp', 'outbox'] as const;
export type EmailSenderName = (typeof EMAIL_SENDERS)[number];

/**
 * The sender the process that queued a message had (`queuedFor` on ShareEmailsSent and
 * ReminderEmailSent): a message queued for `smtp` waits, queued, until a process with SMTP_URL
 * sends it; one queued for `outbox` is delivered by whichever sender the process that finds it
 * has. Events recorded before it was kept have none: delivered by whichever sender, as then.
 */
export type EmailQueuedFor = EmailSenderName;

/**
 * `via`: the sender that took it. Events recorded before it was added have none: read as unknown.
 */
export type EmailDelivered = DomainEvent<'EmailDelivered', { messageId: string; merchantId: number; to: string; deliveredAt: string; via?: EmailSenderName }>;
/** The address opted out between the decision to send and the delivery: nothing was sent. */
/** Not sent: its address opted out, or the message was erased (docs/privacy.md) before it went (`to` null then). */
export type EmailSuppressed = DomainEvent<
  'EmailSuppressed',
  { messageId: string; merchantId: number; to: string | null; reason: 'opted_out' | 'erased'; suppressedAt: string }
>;
/**
 * The receiving SMTP server refused the message for good (a 5xx reply to its recipient or its
 * content, RFC 5321 §4.2.1): nothing was delivered, and it is not tried again, since the same
 * message would get the same answer. `replyCode` is the server's code (550), `reply` its reply
 * as it answered, control characters made spaces and cut at EMAIL_REPLY_MAX_LENGTH.
 */
export type EmailFailed = DomainEvent<'EmailFailed', { messageId: string; merchantId: number; to: string; replyCode: number; reply: string; failedAt: string }>;

/** Characters of a server's reply kept on EmailFailed: enough for its reason, not a page a server might send. */
export const EMAIL_REPLY_MAX_LENGTH = 500;

export const emailDeliveryStream = (messageId: string) => `email-delivery-${messageId}`;

/** What a share's or a reminder's emails share with the outbox: the messages queued and for which sender. */
interface QueuedEmails {
  shareId: number;
  merchantId: number;
  messages: EmailMessage[];
  sentAt: string;
  queuedFor?: EmailQueuedFor;
}

/**
 * The shares feature's ShareEmailsSent and ReminderEmailSent, as far as the outbox reads them
 * (the shares feature records them; its published-events spec checks they still match).
 */
/**
 * The privacy feature's UserDataDeletionCompleted, as far as the outbox reads it: the confirmation
 * to the address the erasure request named (its published-events spec checks it still matches).
 */
export type QueuedNotificationEmails = DomainEvent<
  'UserDataDeletionCompleted',
  { jobId: number; merchantId: number; messages: EmailMessage[]; completedAt: string; queuedFor?: EmailQueuedFor }
>;

export type QueuedShareEmails = DomainEvent<'ShareEmailsSent', QueuedEmails> | DomainEvent<'ReminderEmailSent', QueuedEmails & { reminderEmailId: number }>;
