/** The referral links read model: every code of every type, with its advocate, parameters and coupons. */
import { lowerCased } from '../../platform/personal-data/personal-fields.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { LinkParameters, LinkType, ReferralLinkEvent } from '../domain/referral-link.js';
import { foldCode } from '../../platform/codes.js';

export interface ReferralLinkDoc extends ReadDoc {
  code: string;
  /** foldCode(code): how a code typed in another case finds its link. */
  code_lc: string;
  merchant_id: number;
  widget_id: number;
  type: LinkType;
  /** True for the personal URL types listed by GET /v2/personal_referral_links. */
  personal: boolean;
  advocate_customer_id: number | null;
  advocate_email: string | null;
  advocate_email_lc: string | null;
  share_id: number | null;
  reminder_email_id: number | null;
  link_parameters: LinkParameters | null;
  coupon_codes: string[];
  blacklisted: boolean;
  clicks: number;
  ip_address: string | null;
  last_modified_at: string;
}

export const referralLinksCollection: CollectionDef = {
  name: 'referral_links',
  indexes: [
    ['merchant_id', 'personal'],
    ['merchant_id', 'personal', 'widget_id'],
    ['merchant_id', 'personal', 'advocate_customer_id'],
    ['merchant_id', 'personal', 'advocate_email_lc'],
    ['merchant_id', 'advocate_customer_id'],
    ['code_lc'],
  ],
  personal: {
    byAddress: [{ match: 'advocate_email_lc', erase: ['advocate_email', 'advocate_email_lc', 'ip_address'] }],
    byCustomer: [{ match: 'advocate_customer_id', erase: ['advocate_email', 'advocate_email_lc', 'ip_address'] }],
  },
};

const PERSONAL = new Set<LinkType>(['customer_personal_url', 'email_personal_url', 'vanity_personal_url']);

export const referralLinksProjection = defineProjection<ReferralLinkDoc, ReferralLinkEvent>()({
  name: 'referral_links',
  collection: referralLinksCollection,
  handles: [
    'ReferralLinkCreated',
    'ReferralLinkParametersReplaced',
    'ReferralLinkAdvocateEmailChanged',
    'CouponAssociated',
    'ReferralLinkClicked',
    'ReferralLinkBlacklisted',
    'ReferralLinkUnblacklisted',
  ],
  keys: (event) => [event.data.code],
  evolve(doc, event) {
    if (event.type === 'ReferralLinkCreated') {
      const d = event.data;
      return {
        _id: d.code,
        code: d.code,
        code_lc: foldCode(d.code),
        merchant_id: d.merchantId,
        widget_id: d.widgetId,
        type: d.type,
        personal: PERSONAL.has(d.type),
        advocate_customer_id: d.advocateCustomerId,
        advocate_email: d.advocateEmail,
        advocate_email_lc: lowerCased(d.advocateEmail),
        share_id: d.shareId,
        reminder_email_id: d.reminderEmailId,
        link_parameters: d.linkParameters,
        coupon_codes: [],
        blacklisted: false,
        clicks: 0,
        ip_address: d.ipAddress,
        created_at: d.createdAt,
        last_modified_at: d.createdAt,
      };
    }
    if (!doc) return null;
    switch (event.type) {
      case 'ReferralLinkParametersReplaced':
        return { ...doc, link_parameters: event.data.linkParameters, last_modified_at: event.data.replacedAt };
      case 'ReferralLinkAdvocateEmailChanged':
        return {
          ...doc,
          advocate_email: event.data.advocateEmail,
          advocate_email_lc: lowerCased(event.data.advocateEmail),
          last_modified_at: event.data.changedAt,
        };
      case 'CouponAssociated':
        return { ...doc, coupon_codes: [...doc.coupon_codes, event.data.couponCode], last_modified_at: event.data.associatedAt };
      case 'ReferralLinkClicked':
        return { ...doc, clicks: doc.clicks + 1 };
      case 'ReferralLinkBlacklisted':
        return { ...doc, blacklisted: true, last_modified_at: event.data.at };
      case 'ReferralLinkUnblacklisted':
        return { ...doc, blacklisted: false, last_modified_at: event.data.at };
    }
  },
});
