/** Response schema of v1-customer.presenter.ts: the full v1 Customer (spec §2.2). */
import { arrayOf, object, str } from '../../platform/http/response-schemas.js';
import { V1_REFERRAL_CODE_EXCERPT, V1_SHARE_EXCERPT } from './v1-activity.schemas.js';
import { v1CustomerExcerptProperties } from './customer.schemas.js';

export const V1_CUSTOMER = object({
  ...v1CustomerExcerptProperties,
  created_at: str('Creation timestamp without a time zone (spec §2.2); it is UTC', {
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
    example: '2026-05-01T08:00:00',
  }),
  recent_shares: arrayOf(V1_SHARE_EXCERPT, 'The customer’s most recent shares (up to 10)'),
  recent_referral_codes: arrayOf(V1_REFERRAL_CODE_EXCERPT, 'The customer’s most recent referral codes (up to 10)'),
});
