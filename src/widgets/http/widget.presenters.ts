/** v1 Campaign, v2 Widget and the admin view of a widget variant. */
import { RewardCriteria, WidgetSettings } from '../domain/widget.js';
import { WidgetDoc } from '../read-models/widgets.projection.js';
import { CreateWidgetDto, UpdateWidgetDto } from './admin-widgets.dto.js';

/** v1's incentive types (spec §2.2 ReferralIncentive): no chargebee_credit; such a widget shows `other` there. */
export const V1_INCENTIVE_TYPES = ['percent_discount', 'fixed_cash', 'fixed_points', 'stripe_credit', 'other'] as const;
const v1IncentiveTypes = new Set<string>(V1_INCENTIVE_TYPES);

export function v1IncentiveType(rewardType: string): string {
  return v1IncentiveTypes.has(rewardType) ? rewardType : 'other';
}

export function v1CampaignExcerpt(doc: WidgetDoc) {
  const s = doc.settings;
  return {
    id: doc.id,
    name: s.name,
    published: s.published,
    referral_incentive: s.rewardType === null ? null : { type: v1IncentiveType(s.rewardType), value: s.rewardAmount },
    created_at: doc.created_at,
  };
}

/** `distribution`: the one it is served with (WidgetQueries.servedDistributions). */
export function v1Campaign(doc: WidgetDoc, distribution: number) {
  const s = doc.settings;
  return {
    ...v1CampaignExcerpt(doc),
    archived: s.archived,
    objective: s.objective,
    distribution,
    is_champion: s.isChampion,
    campaign_group_id: s.widgetGroupId,
  };
}

/** `distribution`: the one it is served with (WidgetQueries.servedDistributions); the admin view shows the one set. */
export function v2Widget(doc: WidgetDoc, distribution: number) {
  const s = doc.settings;
  return {
    id: doc.id,
    widget_group_id: s.widgetGroupId,
    name: s.name,
    objective: s.objective,
    distribution,
    published: s.published,
    active: s.active,
    reward_type: s.rewardType,
    reward_amount: s.rewardAmount,
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
  };
}

function criteria(c: RewardCriteria) {
  return {
    new_customers_only: c.newCustomersOnly,
    minimum_purchase_amount: c.minimumPurchaseAmount,
    max_rewards_per_advocate: c.maxRewardsPerAdvocate,
    max_reward_amount_per_advocate: c.maxRewardAmountPerAdvocate,
    cap_window_days: c.capWindowDays,
  };
}

export function adminWidget(doc: WidgetDoc) {
  const s = doc.settings;
  return {
    ...v2Widget(doc, s.distribution),
    archived: s.archived,
    is_champion: s.isChampion,
    destination_url: s.destinationUrl,
    reward_criteria: criteria(s.rewardCriteria),
    fraud_checks: {
      same_customer: s.fraudChecks.sameCustomer,
      same_email: s.fraudChecks.sameEmail,
      similar_email: s.fraudChecks.similarEmail,
      same_ip: s.fraudChecks.sameIp,
    },
    reward_validation_url: s.rewardValidationUrl,
  };
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Admin request body → domain settings; absent fields stay undefined (unchanged). */
export function settingsFromDto(dto: CreateWidgetDto | UpdateWidgetDto): Partial<WidgetSettings> {
  const c = dto.reward_criteria;
  const f = dto.fraud_checks;
  return defined({
    name: dto.name,
    objective: dto.objective,
    widgetGroupId: dto.widget_group_id,
    distribution: dto.distribution,
    published: dto.published,
    active: dto.active,
    archived: dto.archived,
    isChampion: dto.is_champion,
    rewardType: dto.reward_type,
    rewardAmount: dto.reward_amount,
    destinationUrl: dto.destination_url,
    rewardValidationUrl: dto.reward_validation_url,
    rewardCriteria: c
      ? (defined({
          newCustomersOnly: c.new_customers_only,
          minimumPurchaseAmount: c.minimum_purchase_amount,
          maxRewardsPerAdvocate: c.max_rewards_per_advocate,
          maxRewardAmountPerAdvocate: c.max_reward_amount_per_advocate,
          capWindowDays: c.cap_window_days,
        }) as RewardCriteria)
      : undefined,
    fraudChecks: f
      ? (defined({ sameCustomer: f.same_customer, sameEmail: f.same_email, similarEmail: f.similar_email, sameIp: f.same_ip }) as WidgetSettings['fraudChecks'])
      : undefined,
  });
}
