/**
 * Response schemas of sales.presenters.ts: v2 Purchase and Conversion (spec §2.3), the reward
 * record (not shown in the spec) and its admin view, and their v1 records (docs/api-decisions.md).
 */
import { V1_SHARER, V1_CUSTOMER } from '../../customers/index.js';
import { CONVERSION_CHANNELS } from '../domain/conversion-events.js';
import { apiLink, arrayOf, dateTime, int, nullable, num, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { REJECTION_REASONS } from '../domain/evaluation.js';
import { V1_INCENTIVE_TYPES, V1_CAMPAIGN_EXCERPT, REWARD_TYPES } from '../../widgets/index.js';
import { NEW_CUSTOMER_VALUES } from '../domain/purchase.js';

const REWARD_STATUSES = ['pending', 'approved', 'rejected'] as const;

export const PRODUCT = object({
  sku: str(),
  quantity: int('Units', { minimum: 0 }),
  price: { type: 'number', minimum: 0, description: 'Currency units' },
});

export const V2_PURCHASE = object(
  {
    id: int('Service-assigned id'),
    order_id: str("Merchant's order id"),
    coupon_code: str('Present only when a coupon code was used'),
    payment_amount: nullable(num('Total amount reported')),
    new_customer: {
      oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['unknown'] }],
      description: 'Reported first-time customer: true (`yes`), false (`no`) or "unknown" (`unknown`, or not reported)',
    },
    ip_address: nullable(str()),
    referrer: nullable(str('Referrer URL')),
    widget: nullable(apiLink('API link of the widget the purchase names, else the one its code attributed it to')),
    email_address: nullable(str("Purchaser's email, if known")),
    customer: nullable(apiLink('API link of the buyer customer, if any')),
    products: arrayOf(PRODUCT),
    created_at: dateTime(),
  },
  { optional: ['coupon_code'] },
);

export const V2_CONVERSION = object({
  id: int(),
  widget: apiLink('API link of the widget'),
  customer: nullable(apiLink('API link of the advocate customer, if any')),
  purchase: apiLink('API link of the purchase that triggered the conversion'),
  advocate_email_address: nullable(str("Advocate's email, if known")),
  channel: oneOfStrings(CONVERSION_CHANNELS),
  source: apiLink('API link of the share, reminder email, or referral link (for PURL conversions)'),
  created_at: dateTime(),
  last_modified_at: dateTime(),
});

const v2RewardProperties = {
  id: int("The reward's id: its conversion's id"),
  conversion: apiLink('API link of the conversion'),
  widget: apiLink('API link of the widget'),
  customer: nullable(apiLink('API link of the advocate customer, if any')),
  advocate_email_address: nullable(str()),
  reward_type: oneOfStrings(REWARD_TYPES),
  amount: num('Amount in units of the reward type'),
  status: oneOfStrings(REWARD_STATUSES),
  rejected_reasons: arrayOf(oneOfStrings(REJECTION_REASONS)),
  created_at: dateTime(),
  evaluated_at: nullable(dateTime('When the reward was decided; null while pending')),
};

export const V2_REWARD = object(v2RewardProperties);

/** The admin view: the reward record with who decided it by hand, and its validation callback's attempts (docs/webhooks.md, "Client API"). */
export const ADMIN_REWARD = object({
  ...v2RewardProperties,
  decided_by: nullable(str('Who decided it by hand (approve or reject); null when only the rules or the callback did')),
  decision_reason: nullable(str("The reason given with the decision by hand, or the merchant's validation callback's words; else null")),
  validation_attempts: arrayOf(
    object({
      at: dateTime(),
      status_code: nullable(int("The callback's HTTP status; null when no answer came")),
      error: nullable(str('Why the attempt failed (a connection error, a timeout, an unreadable answer); null when it was answered')),
      next_attempt_at: nullable(dateTime('When the callback is asked again; null when no retry follows')),
    }),
    'Calls to the reward validation callback, oldest first; empty when there is none',
  ),
  next_validation_at: nullable(dateTime('When the callback is asked next; null when no call is due')),
});

export const V1_PURCHASE = object({
  id: int(),
  order_id: str(),
  coupon_code: nullable(str()),
  referral_code: nullable(str()),
  date: dateTime('Creation timestamp'),
  total: nullable(num('Total amount reported')),
  new_customer: oneOfStrings(NEW_CUSTOMER_VALUES, 'As reported; unknown when not reported'),
  email: nullable(str()),
  ip_address: nullable(str()),
  referrer: nullable(str()),
  products: arrayOf(PRODUCT),
  customer: nullable(V1_CUSTOMER, 'The buyer, as the full v1 Customer; null when the purchase names none'),
  campaign: nullable(V1_CAMPAIGN_EXCERPT, 'The campaign the purchase names, else the one its code attributed it to, else null'),
  conversion_uri: nullable(apiLink('The v1 conversion; null until converted')),
  detail_uri: apiLink('The v1 purchase'),
});

export const V1_CONVERSION = object({
  id: int(),
  referral_code: str('The code that attributed the purchase'),
  coupon_code: nullable(str()),
  channel: oneOfStrings(CONVERSION_CHANNELS),
  campaign: V1_CAMPAIGN_EXCERPT,
  sharer: V1_SHARER,
  purchase: V1_PURCHASE,
  share_uri: nullable(apiLink('The v1 share, when the source is a share')),
  reminder_email_uri: nullable(apiLink('The v1 reminder email, when the source is a reminder email')),
  created_at: dateTime(),
  last_modified_at: dateTime(),
  detail_uri: apiLink('The v1 conversion'),
});

export const V1_REWARD = object({
  id: int(),
  reward_type: oneOfStrings(V1_INCENTIVE_TYPES, "v1's incentive types: chargebee_credit shows as other"),
  amount: num(),
  status: oneOfStrings(REWARD_STATUSES),
  rejected_reasons: arrayOf(oneOfStrings(REJECTION_REASONS)),
  campaign: V1_CAMPAIGN_EXCERPT,
  sharer: V1_SHARER,
  conversion_uri: apiLink('The v1 conversion'),
  created_at: dateTime(),
  evaluated_at: nullable(dateTime('When the reward was decided; null while pending')),
  detail_uri: apiLink('The v1 reward'),
});
