/**
 * Response schemas of widget.presenters.ts: v1 Campaign and CampaignExcerpt (spec §2.2), v2 Widget
 * (spec §2.3), and the admin view of a widget variant.
 */
import { bool, dateTime, int, nullable, num, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { OBJECTIVES, REWARD_TYPES } from '../domain/widget.js';
import { V1_INCENTIVE_TYPES } from './widget.presenters.js';

const DISTRIBUTION = int('Percentage chance that the variant is served (100 when it is alone in its group)', { minimum: 0, maximum: 100 });

export const V1_REFERRAL_INCENTIVE = nullable(
  object({
    type: oneOfStrings(V1_INCENTIVE_TYPES, 'A v2 chargebee_credit reward shows as other'),
    value: num('Amount in units of the reward type'),
  }),
  'ReferralIncentive; null when the variant offers no reward (docs/api-decisions.md)',
);

const campaignExcerpt = {
  id: int('Service-assigned id (the v2 widget id)'),
  name: str(),
  published: bool(),
  referral_incentive: V1_REFERRAL_INCENTIVE,
  created_at: dateTime(),
};

export const V1_CAMPAIGN_EXCERPT = object(campaignExcerpt);

export const V1_CAMPAIGN = object({
  ...campaignExcerpt,
  archived: bool(),
  objective: oneOfStrings(OBJECTIVES),
  distribution: DISTRIBUTION,
  is_champion: bool('Whether the campaign is the champion of its group'),
  campaign_group_id: str('Group (of variants) the campaign belongs to'),
});

const v2WidgetProperties = {
  id: int('Service-assigned id of the variant'),
  widget_group_id: str(),
  name: str(),
  objective: oneOfStrings(OBJECTIVES),
  distribution: DISTRIBUTION,
  published: bool(),
  active: bool(),
  reward_type: nullable(oneOfStrings(REWARD_TYPES), 'null when the variant offers no reward'),
  reward_amount: nullable(num('Amount in units of the reward type'), 'null when the variant offers no reward'),
  created_at: dateTime(),
  last_modified_at: dateTime(),
};

export const V2_WIDGET = object(v2WidgetProperties);

/** The admin view: the v2 Widget with the distribution as set, and every setting and reward rule (docs/api-decisions.md, "Admin API"). */
export const ADMIN_WIDGET = object({
  ...v2WidgetProperties,
  distribution: int('The distribution as set (0 to 100); v1 and v2 show 100 for a variant alone in its group', { minimum: 0, maximum: 100 }),
  archived: bool(),
  is_champion: bool('Whether the variant is the champion of its group'),
  destination_url: nullable(str('Merchant page the trackable link redirects to; null when there is none')),
  reward_criteria: object({
    new_customers_only: bool("Reward only when the purchase's new_customer is yes"),
    minimum_purchase_amount: nullable(num('Minimum payment_amount of the purchase; null: none')),
    max_rewards_per_advocate: nullable(int('Most rewards one advocate earns on this widget; null: no cap', { minimum: 1 })),
    max_reward_amount_per_advocate: nullable(num('Most reward amount one advocate earns on this widget; null: no cap')),
    cap_window_days: nullable(int('Rolling window of the two caps, in days; null: lifetime', { minimum: 1 })),
  }),
  fraud_checks: object({
    same_customer: bool(),
    same_email: bool(),
    similar_email: bool(),
    same_ip: bool(),
  }),
  reward_validation_url: nullable(str("This widget's reward validation URL, over the merchant's client-API one; null: the merchant's, if any")),
});
