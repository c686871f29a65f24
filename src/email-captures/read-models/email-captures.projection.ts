import { lowerCased } from '../../platform/personal-data/personal-fields.js';
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { EmailCaptured } from '../domain/email-capture-events.js';

export interface EmailCaptureDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  widget_id: number;
  /** Null once erased (docs/privacy.md), as is its lower-cased copy. */
  email_address: string | null;
  email_lc: string | null;
  referral_code: string | null;
  newsletter_opt_in: boolean;
  ip_address: string | null;
}

export const emailCapturesCollection: CollectionDef = {
  name: 'email_captures',
  indexes: [['merchant_id'], ['merchant_id', 'widget_id'], ['merchant_id', 'email_lc']],
  personal: { byAddress: [{ match: 'email_lc', erase: ['email_address', 'email_lc', 'ip_address'] }] },
};

export const emailCapturesProjection = defineProjection<EmailCaptureDoc, EmailCaptured>()({
  name: 'email_captures',
  collection: emailCapturesCollection,
  handles: ['EmailCaptured'],
  keys: (event) => [docKey(event.data.emailCaptureId)],
  evolve(_doc, event) {
    const d = event.data;
    return {
      _id: docKey(d.emailCaptureId),
      id: d.emailCaptureId,
      merchant_id: d.merchantId,
      widget_id: d.widgetId,
      email_address: d.emailAddress,
      email_lc: lowerCased(d.emailAddress),
      referral_code: d.referralCode,
      newsletter_opt_in: d.newsletterOptIn,
      ip_address: d.ipAddress,
      created_at: d.createdAt,
    };
  },
});
