/** Every message the service decided to send, and whether it was delivered: the admin outbox. */
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';
import { EmailDelivered, EmailFailed, EmailQueuedFor, EmailSenderName, EmailSuppressed, QueuedShareEmails } from '../domain/email-events.js';

/**
 * What became of a message: waiting for its sender (tried again while delivery fails for now), taken
 * by it, dropped because the address opted out meanwhile, or refused for good by the receiving server.
 */
export const OUTBOX_STATUSES = ['queued', 'delivered', 'suppressed', 'failed'] as const;
/** The message's occasion: a share's email to a recipient, or a reminder of it. */
export const OUTBOX_KINDS = ['share', 'reminder_email'] as const;

export interface OutboxDoc extends ReadDoc {
  merchant_id: number;
  to: string;
  /** `to` lower-cased and trimmed, as every address filter compares (GET …/outbox?recipient=). */
  to_lc: string;
  subject: string;
  text: string;
  kind: (typeof OUTBOX_KINDS)[number];
  share_id: number;
  reminder_email_id: number | null;
  status: (typeof OUTBOX_STATUSES)[number];
  delivered_at: string | null;
  /** `smtp`: sent; `outbox`: kept here, nothing sent (no SMTP_URL, or the sandbox); null: not delivered, or recorded before this was. */
  delivered_via: EmailSenderName | null;
  /** The sender it was queued for (EmailQueuedFor): `smtp` waits for a process with SMTP_URL; null: queued before this was kept. */
  queued_for: EmailQueuedFor | null;
  /** Why the receiving server refused it for good (EmailFailed), when it did: absent on documents written before failures were kept. */
  failure?: { reply_code: number; reply: string; failed_at: string } | null;
}

export const outboxCollection: CollectionDef = {
  name: 'email_outbox',
  indexes: [['merchant_id'], ['status'], ['merchant_id', 'status'], ['merchant_id', 'to_lc']],
  // A message is its recipient's, and also its advocate's (the share's text and name are in it).
  personal: {
    byAddress: [{ match: 'to_lc', erase: ['to', 'to_lc', 'subject', 'text', 'failure.reply'] }],
    byReference: [
      { match: 'share_id', of: 'shares', by: 'reward_email_lc', erase: ['subject', 'text'] },
      { match: 'share_id', of: 'shares', by: 'customer_id', erase: ['subject', 'text'] },
    ],
  },
};

type OutboxEvent = QueuedShareEmails | EmailDelivered | EmailSuppressed | EmailFailed;

export const outboxProjection = defineProjection<OutboxDoc, OutboxEvent>()({
  name: 'email_outbox',
  collection: outboxCollection,
  handles: ['ShareEmailsSent', 'ReminderEmailSent', 'EmailDelivered', 'EmailSuppressed', 'EmailFailed'],
  keys(event) {
    return event.type === 'ShareEmailsSent' || event.type === 'ReminderEmailSent' ? event.data.messages.map((m) => m.messageId) : [event.data.messageId];
  },
  evolve(doc, event, key) {
    switch (event.type) {
      case 'ShareEmailsSent':
      case 'ReminderEmailSent': {
        const m = event.data.messages.find((x) => x.messageId === key)!;
        return {
          _id: key,
          merchant_id: event.data.merchantId,
          to: m.to,
          to_lc: normaliseEmail(m.to),
          subject: m.subject,
          text: m.text,
          kind: event.type === 'ShareEmailsSent' ? 'share' : 'reminder_email',
          share_id: event.data.shareId,
          reminder_email_id: event.type === 'ReminderEmailSent' ? event.data.reminderEmailId : null,
          status: doc?.status ?? 'queued',
          delivered_at: doc?.delivered_at ?? null,
          delivered_via: doc?.delivered_via ?? null,
          queued_for: event.data.queuedFor ?? null,
          failure: doc?.failure ?? null,
          created_at: event.data.sentAt,
        };
      }
      case 'EmailDelivered':
        return doc ? { ...doc, status: 'delivered', delivered_at: event.data.deliveredAt, delivered_via: event.data.via ?? null } : null;
      case 'EmailSuppressed':
        return doc ? { ...doc, status: 'suppressed' } : null;
      case 'EmailFailed':
        return doc
          ? { ...doc, status: 'failed', failure: { reply_code: event.data.replyCode, reply: event.data.reply, failed_at: event.data.failedAt } }
          : null;
    }
  },
});
