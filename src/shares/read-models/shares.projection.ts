/** Shares and reminder emails read models (spec §2.3 Share, ReminderEmail). */
import { lowerCased } from '../../platform/personal-data/personal-fields.js';
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { ReminderEmailSent, ShareChannel, ShareEvent } from '../domain/share-events.js';

export interface ShareDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  widget_id: number;
  customer_id: number | null;
  referral_code: string;
  channel: ShareChannel;
  /** The message sent: the advocate's, or the merchant's replacement (share instructions). */
  message: string | null;
  /** The text the advocate entered (v1's ShareMessage.content); absent on documents built before it was kept. */
  advocate_message?: string | null;
  /** Null once erased (docs/privacy.md), as is its lower-cased copy. */
  reward_email_address: string | null;
  reward_email_lc: string | null;
  email_recipients: string[];
  newsletter_opt_in: boolean;
  send_reminder: boolean;
  ip_address: string | null;
  link_parameters: Record<string, unknown> | null;
  /** `none`: a share through a social channel, which sends no email. */
  emails_status: 'pending' | 'sent' | 'blocked' | 'none';
  skipped_recipients_count: number | null;
  reminder_pending: boolean;
  reminder_due_at: string | null;
  /** When the share-instructions callback is asked again (null: not yet asked, or no longer). */
  instructions_next_at: string | null;
  last_modified_at: string;
}

export interface ReminderEmailDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  share_id: number;
  widget_id: number;
  customer_id: number | null;
  referral_code: string;
  advocate_email_address: string;
  email_recipients_count: number;
  last_modified_at: string;
}

export const sharesCollection: CollectionDef = {
  name: 'shares',
  indexes: [['merchant_id'], ['merchant_id', 'widget_id'], ['merchant_id', 'customer_id'], ['merchant_id', 'reward_email_lc']],
  // The advocate's address, words and network address; a recipient's address alone (the message is the advocate's).
  personal: {
    byAddress: [{ match: 'reward_email_lc', erase: ['reward_email_address', 'reward_email_lc', 'message', 'advocate_message', 'ip_address'] }],
    byCustomer: [{ match: 'customer_id', erase: ['reward_email_address', 'reward_email_lc', 'message', 'advocate_message', 'ip_address'] }],
    addressLists: [{ list: 'email_recipients' }],
  },
};
export const reminderEmailsCollection: CollectionDef = {
  name: 'reminder_emails',
  indexes: [['merchant_id'], ['merchant_id', 'share_id']],
  personal: {
    byAddress: [{ match: 'advocate_email_address', erase: ['advocate_email_address'] }],
    byCustomer: [{ match: 'customer_id', erase: ['advocate_email_address'] }],
  },
};

export const sharesProjection = defineProjection<ShareDoc, ShareEvent>()({
  name: 'shares',
  collection: sharesCollection,
  handles: [
    'ShareCreated',
    'ShareEmailsSent',
    'ShareEmailsBlocked',
    'ShareInstructionsAttempted',
    'ReminderEmailScheduled',
    'ReminderEmailSent',
    'ReminderEmailCancelled',
  ],
  keys: (event) => [docKey(event.data.shareId)],
  evolve(doc, event) {
    if (event.type === 'ShareCreated') {
      const d = event.data;
      return {
        _id: docKey(d.shareId),
        id: d.shareId,
        merchant_id: d.merchantId,
        widget_id: d.widgetId,
        customer_id: d.customerId,
        referral_code: d.referralCode,
        channel: d.channel,
        message: d.message,
        advocate_message: d.message,
        reward_email_address: d.rewardEmailAddress,
        reward_email_lc: lowerCased(d.rewardEmailAddress),
        email_recipients: d.emailRecipients,
        newsletter_opt_in: d.newsletterOptIn,
        send_reminder: d.sendReminder,
        ip_address: d.ipAddress,
        link_parameters: d.linkParameters,
        emails_status: d.channel === 'email' ? 'pending' : 'none',
        skipped_recipients_count: d.channel === 'email' ? null : 0,
        reminder_pending: false,
        reminder_due_at: null,
        instructions_next_at: null,
        created_at: d.createdAt,
        last_modified_at: d.createdAt,
      };
    }
    if (!doc) return null;
    switch (event.type) {
      case 'ShareEmailsSent':
        return {
          ...doc,
          emails_status: 'sent',
          instructions_next_at: null,
          skipped_recipients_count: event.data.skippedOptedOut.length,
          message: event.data.message,
          last_modified_at: event.data.sentAt,
        };
      case 'ShareEmailsBlocked':
        // Decided: no recipient is emailed (a client tells a blocked share from one still waiting by this).
        return {
          ...doc,
          emails_status: 'blocked',
          instructions_next_at: null,
          skipped_recipients_count: doc.email_recipients.length,
          last_modified_at: event.data.blockedAt,
        };
      case 'ShareInstructionsAttempted':
        return { ...doc, instructions_next_at: event.data.nextAttemptAt };
      case 'ReminderEmailScheduled':
        return { ...doc, reminder_pending: true, reminder_due_at: event.data.dueAt };
      case 'ReminderEmailSent':
        return { ...doc, reminder_pending: false, last_modified_at: event.data.sentAt };
      case 'ReminderEmailCancelled':
        return { ...doc, reminder_pending: false, last_modified_at: event.data.cancelledAt };
    }
  },
});

export const reminderEmailsProjection = defineProjection<ReminderEmailDoc, ReminderEmailSent>()({
  name: 'reminder_emails',
  collection: reminderEmailsCollection,
  handles: ['ReminderEmailSent'],
  keys: (event) => [docKey(event.data.reminderEmailId)],
  evolve(_doc, event) {
    const d = event.data;
    return {
      _id: docKey(d.reminderEmailId),
      id: d.reminderEmailId,
      merchant_id: d.merchantId,
      share_id: d.shareId,
      widget_id: d.widgetId,
      customer_id: d.customerId,
      referral_code: d.referralCode,
      advocate_email_address: d.advocateEmailAddress,
      email_recipients_count: d.emailRecipientsCount,
      created_at: d.sentAt,
      last_modified_at: d.sentAt,
    };
  },
});
