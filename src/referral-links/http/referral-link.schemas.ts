/**
 * Response schemas of referral-link.presenters.ts: v2 ReferralLink (spec §2.3), the admin blacklist
 * routes' link (the same with `blacklisted`), and (from customers) v1 ReferralCodeExcerpt (spec §2.2).
 */
import { apiLink, bool, LINK_PARAMETERS, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { LINK_TYPES } from '../domain/referral-link.js';
import { TRACKABLE_LINK, V1_REFERRAL_CODE_EXCERPT, v1ReferralCodeExcerptProperties } from '../../customers/index.js';

export { V1_REFERRAL_CODE_EXCERPT, v1ReferralCodeExcerptProperties };

const v2ReferralLinkProperties = {
  type: oneOfStrings(LINK_TYPES),
  code: str('Short alphanumeric referral code'),
  widget: apiLink('API link of the widget'),
  origin: str(
    'Customer PURL, or vanity PURL of a customer: API URL of the customer. Email PURL, or vanity PURL of an address: the email address. Share or reminder email: its API URL',
  ),
  link_parameters: LINK_PARAMETERS,
  trackable_link: TRACKABLE_LINK,
};

export const V2_REFERRAL_LINK = object(v2ReferralLinkProperties);

export const BLACKLISTED_REFERRAL_LINK = object({
  ...v2ReferralLinkProperties,
  blacklisted: bool('Whether the code is blacklisted: its link still redirects, without the offer'),
});
