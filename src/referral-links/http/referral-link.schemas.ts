/**
 * Response schemas of referral-link.presenters.ts: v2 ReferralLink (spec §2.3), the admin blacklist
 * routes' link (the same with `blacklisted`), and v1 ReferralCodeExcerpt (spec §2.2).
 */
import { apiLink, bool, LINK_PARAMETERS, nullable, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { LINK_TYPES } from '../domain/referral-link.js';

const TRACKABLE_LINK = str('The link to give the advocate: the trackable-link base plus the code', { format: 'uri' });

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

export const v1ReferralCodeExcerptProperties = {
  referral_code: str(),
  trackable_link: TRACKABLE_LINK,
  destination_url: nullable(str('Merchant page the link redirects to; null when the campaign has none', { format: 'uri' })),
  referral_code_blacklisted: bool('True when the code no longer redirects to the offer'),
};

export const V1_REFERRAL_CODE_EXCERPT = object(v1ReferralCodeExcerptProperties);
