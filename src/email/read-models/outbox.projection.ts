/** Every message the service decided to send, and whether it was delivered: the admin outbox. */
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';
import {
  EmailDelivered,
  EmailFailed,
  EmailQueuedFor,
  EmailSenderName,
  EmailSuppressed,
  QueuedNotificationEmails,
  QueuedShareEmails,
} from '../domain/email-events.js';

/**
 * What became of a message: waiting for its sender (tried again while delivery fails for now), taken
 * by it, dropped because the address opted out meanwhile, or refused for good by the receiving server.
 */
export const OUTBOX_STATUSES = ['queued', 'delivered', 'suppressed', 'failed'] as const;
/** The message's occasion: a share's email to a recipient, a reminder of it, or the confirmation of a personal-data erasure. */
export const OUTBOX_KINDS = ['share', 'reminder_email', 'user_data_deletion'] as const;

export interface OutboxDoc extends ReadDoc {
  merchant_id: number;
  /** Null once erased (docs/privacy.md), as are `to_lc`, `subject` and `text`. */
  to: string | null;
  /** `to` lower-cased and trimmed, as every address filter compares (GET …/outbox?recipient=). */
  to_lc: string | null;
  subject: string | null;
  text: string | null;
  kind: (typeof OUTBOX_KINDS)[number];
  /** The share the message is about; null for an erasure's confirmation. */
  share_id: number | null;
  /** The erasure job a confirmation is about (absent on documents of other kinds written before it was kept). */
  user_data_deletion_id?: number | null;
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

type OutboxEvent = QueuedShareEmails | QueuedNotificationEmails | EmailDelivered | EmailSuppressed | EmailFailed;

export const outboxProjection = defineProjection<OutboxDoc, OutboxEvent>()({
  name: 'email_outbox',
  collection: outboxCollection,
  handles: ['ShareEmailsSent', 'ReminderEmailSent', 'UserDataDeletionCompleted', 'EmailDelivered', 'EmailSuppressed', 'EmailFailed'],
  keys(event) {
    if (event.type === 'ShareEmailsSent' || event.type === 'ReminderEmailSent' || event.type === 'UserDataDeletionCompleted') {
      return event.data.messages.map((m) => m.messageId);
    }
    return [event.data.messageId];
  },
  evolve(doc, event, key) {
    switch (event.type) {
      case 'ShareEmailsSent':
      case 'ReminderEmailSent':
      case 'UserDataDeletionCompleted': {
        const m = event.data.messages.find((x) => x.messageId === key)!;
        const confirmation = event.type === 'UserDataDeletionCompleted';
        return {
          _id: key,
          merchant_id: event.data.merchantId,
          // An erased message reads null (docs/privacy.md).
          to: m.to ?? null,
          to_lc: typeof m.to === 'string' ? normaliseEmail(m.to) : null,
          subject: m.subject ?? null,
          text: m.text ?? null,
          kind: event.type === 'ShareEmailsSent' ? 'share' : event.type === 'ReminderEmailSent' ? 'reminder_email' : 'user_data_deletion',
          share_id: confirmation ? null : event.data.shareId,
          reminder_email_id: event.type === 'ReminderEmailSent' ? event.data.reminderEmailId : null,
          user_data_deletion_id: confirmation ? event.data.jobId : null,
          status: doc?.status ?? 'queued',
          delivered_at: doc?.delivered_at ?? null,
          delivered_via: doc?.delivered_via ?? null,
          queued_for: event.data.queuedFor ?? null,
          failure: doc?.failure ?? null,
          created_at: event.type === 'UserDataDeletionCompleted' ? event.data.completedAt : event.data.sentAt,
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
