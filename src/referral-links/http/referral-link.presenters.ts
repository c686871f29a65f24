/** v2 ReferralLink (spec §2.3) and v1 ReferralCodeExcerpt (spec §2.2). */
import { Links } from '../../platform/http/links.js';
import { ReferralLinkDoc } from '../read-models/referral-links.projection.js';

/** Link parameters travel as a JSON-encoded string (spec §2.2, §2.3). */
export function encodedParameters(doc: ReferralLinkDoc): string | null {
  return doc.link_parameters ? JSON.stringify(doc.link_parameters) : null;
}

function origin(doc: ReferralLinkDoc, links: Links): string | null {
  switch (doc.type) {
    case 'customer_personal_url':
      return doc.advocate_customer_id !== null ? links.v2('customers', doc.advocate_customer_id) : null;
    case 'email_personal_url':
      return doc.advocate_email;
    case 'vanity_personal_url':
      return doc.advocate_customer_id !== null ? links.v2('customers', doc.advocate_customer_id) : doc.advocate_email;
    case 'share':
      return doc.share_id !== null ? links.v2('shares', doc.share_id) : null;
    case 'reminder_email':
      return doc.reminder_email_id !== null ? links.v2('reminder_emails', doc.reminder_email_id) : null;
  }
}

export function v2ReferralLink(doc: ReferralLinkDoc, links: Links) {
  return {
    type: doc.type,
    code: doc.code,
    widget: links.v2('widgets', doc.widget_id),
    origin: origin(doc, links),
    link_parameters: encodedParameters(doc),
    // Beyond the spec's fields: the link to hand to the advocate.
    trackable_link: links.trackable(doc.code),
  };
}

export function v1ReferralCodeExcerpt(doc: ReferralLinkDoc, links: Links, destinationUrl: string | null) {
  return {
    referral_code: doc.code,
    trackable_link: links.trackable(doc.code),
    destination_url: destinationUrl,
    referral_code_blacklisted: doc.blacklisted,
  };
}
