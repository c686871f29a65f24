/** Response schema of POST /v1/referral_codes (spec §2.2; presented in v1-referral-codes.controller.ts). */
import { V1_CUSTOMER } from '../../customers/index.js';
import { arrayOf, LINK_PARAMETERS, nullable, object, oneOfStrings, str, type SchemaObject } from '../../platform/http/response-schemas.js';
import { V1_CAMPAIGN_EXCERPT } from '../../widgets/index.js';
import type { LinkType } from '../domain/referral-link.js';
import { v1ReferralCodeExcerptProperties } from './referral-link.schemas.js';

/** The link types POST /v1/referral_codes answers with (rule 2, and a vanity link standing for the advocate's PURL). */
const PERSONAL_LINK_TYPES = ['customer_personal_url', 'email_personal_url', 'vanity_personal_url'] as const satisfies readonly LinkType[];

/** What the spec gives as an object, and this route, which issues personal links only, answers as null. */
const alwaysNull = (description: string): SchemaObject => ({ type: 'object', nullable: true, enum: [null], description });

export const V1_REFERRAL_CODE_RESPONSE = object({
  type: oneOfStrings(PERSONAL_LINK_TYPES, 'Kind of referral code: a customer or email PURL, or the vanity link that stands for one'),
  ...v1ReferralCodeExcerptProperties,
  share: alwaysNull('Always null: the codes this route issues are personal links, not shares (docs/api-decisions.md)'),
  reminder_email: alwaysNull('Always null: the codes this route issues are personal links, not reminder emails (docs/api-decisions.md)'),
  campaign: V1_CAMPAIGN_EXCERPT,
  additional_link_parameters: LINK_PARAMETERS,
  customer: nullable(V1_CUSTOMER, 'The full v1 Customer; null for an advocate known by email only'),
  email: nullable(str("The advocate's reward address")),
  coupon_codes: arrayOf(str(), 'Coupon codes associated with the referral code'),
});
