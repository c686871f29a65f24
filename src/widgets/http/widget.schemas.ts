/** Response schemas of widget.presenters.ts: v1 Campaign and CampaignExcerpt (spec §2.2), v2 Widget (spec §2.3). */
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

export const V2_WIDGET = object({
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
});
