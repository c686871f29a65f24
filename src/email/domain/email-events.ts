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

/**
 * `via`: the sender that took it, `smtp` (sent) or `outbox` (no SMTP_URL, or the sandbox: kept in
 * the outbox, nothing sent). Events recorded before it was added have none: read as unknown.
 */
export type EmailDelivered = DomainEvent<'EmailDelivered', { messageId: string; merchantId: number; to: string; deliveredAt: string; via?: 'smtp' | 'outbox' }>;
/** The address opted out between the decision to send and the delivery: nothing was sent. */
export type EmailSuppressed = DomainEvent<'EmailSuppressed', { messageId: string; merchantId: number; to: string; reason: 'opted_out'; suppressedAt: string }>;

export const emailDeliveryStream = (messageId: string) => `email-delivery-${messageId}`;
