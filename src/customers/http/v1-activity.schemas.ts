/**
 * The v1 Customer's recent_shares and recent_referral_codes items (spec §2.2): ShareExcerpt and
 * ReferralCodeExcerpt. Customers publish their shape; the shares and referral-links features,
 * which answer them (customer-activity.ts), present theirs with these schemas too.
 */
import { apiLink, arrayOf, bool, dateTime, int, nullable, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { V1_CAMPAIGN_EXCERPT } from '../../widgets/index.js';
import { V1_SHARER } from './customer.schemas.js';

/** The networks a share goes out on; the shares feature's SHARE_CHANNELS, checked equal by its share-events.spec.ts. */
export const V1_SHARE_NETWORKS = ['facebook', 'twitter', 'messenger', 'email'] as const;

export const EMAIL_RECIPIENTS = arrayOf(str(), "Recipients; present only when the merchant's can_see_recipients setting is on");

/** ShareExcerpt (spec §2.2); also the v1 Share record of GET /v1/shares. */
export const V1_SHARE_EXCERPT = object(
  {
    id: int('Internal id'),
    referral_code: str(),
    message: object(
      {
        id: nullable(str('Message id assigned by the social network: null, email shares have none')),
        content: nullable(str('Text entered by the advocate')),
        network: oneOfStrings(V1_SHARE_NETWORKS, 'Distribution channel'),
      },
      { description: 'ShareMessage' },
    ),
    campaign: { ...V1_CAMPAIGN_EXCERPT, description: 'CampaignExcerpt being shared' },
    ip_address: nullable(str()),
    newsletter_opt_in: bool(),
    send_reminder: bool(),
    created_at: dateTime(),
    detail_uri: apiLink('The v1 share (GET /v1/shares/{id})'),
    email_recipients: EMAIL_RECIPIENTS,
    sharer: V1_SHARER,
  },
  { optional: ['email_recipients'] },
);

export const TRACKABLE_LINK = str('The link to give the advocate: the trackable-link base plus the code', { format: 'uri' });

export const v1ReferralCodeExcerptProperties = {
  referral_code: str(),
  trackable_link: TRACKABLE_LINK,
  destination_url: nullable(str('Merchant page the link redirects to; null when the campaign has none', { format: 'uri' })),
  referral_code_blacklisted: bool('True when the code no longer redirects to the offer'),
};

export const V1_REFERRAL_CODE_EXCERPT = object(v1ReferralCodeExcerptProperties);
