/**
 * Response schemas of the coupon records (not shown in the spec; docs/api-decisions.md, "Coupons"),
 * presented in coupons.controllers.ts. Only coupons a referral code has taken are listed, so their
 * code, widget and time of association are always known. And the admin view of a coupon bank.
 */
import { V1_CUSTOMER_EXCERPT } from '../../customers/index.js';
import { apiLink, dateTime, int, nullable, object, str } from '../../platform/http/response-schemas.js';
import { V1_CAMPAIGN_EXCERPT } from '../../widgets/index.js';

const common = {
  code: str('The coupon code'),
  coupon_bank_id: int('The bank it was uploaded to'),
  referral_code: str('The referral code it is associated with (and attributes purchases to)'),
};

export const V2_COUPON = object({
  ...common,
  widget: apiLink("API link of the referral code's widget"),
  customer: nullable(apiLink('API link of the advocate customer; null for an advocate known by email only')),
  associated_at: dateTime('When the coupon was first associated with the referral code'),
});

export const V1_COUPON = object({
  ...common,
  campaign: V1_CAMPAIGN_EXCERPT,
  customer: nullable(V1_CUSTOMER_EXCERPT, 'The advocate; null for an advocate known by email only'),
  associated_at: dateTime('When the coupon was first associated with the referral code'),
});

export const COUPON_BANK = object({
  id: int('Service-assigned id (coupon_bank_id of POST /v1/referral_codes)'),
  name: str(),
  codes_count: int('Codes uploaded to the bank', { minimum: 0 }),
  available_count: int('Codes no referral code has taken yet', { minimum: 0 }),
  created_at: dateTime(),
  last_modified_at: dateTime(),
});
