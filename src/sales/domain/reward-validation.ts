/** The reward validation client-API callback (docs/webhooks.md): its request body and how its answer is read. Pure. */
import type { RewardFacts } from './reward-events.js';

export interface RewardValidationRequest {
  type: 'reward_validation';
  reward: Record<string, unknown>;
}

/** Asked before a reward is approved. */
export function rewardValidationRequest(reward: RewardFacts): RewardValidationRequest {
  return {
    type: 'reward_validation',
    reward: {
      reward_id: reward.rewardId,
      conversion_id: reward.conversionId,
      purchase_id: reward.purchaseId,
      widget_id: reward.widgetId,
      advocate_customer_id: reward.advocateCustomerId,
      advocate_email_address: reward.advocateEmailAddress,
      reward_type: reward.rewardType,
      amount: reward.amount,
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type RewardValidation = { approved: true } | { approved: false; reason: string | null };

/** A 200 answer to reward validation approves, unless its body is `{"approved": false, "reason"?}`. */
export function readRewardValidation(json: unknown): RewardValidation {
  if (isObject(json) && json.approved === false) return { approved: false, reason: typeof json.reason === 'string' ? json.reason : null };
  return { approved: true };
}

/** Why a reward is rejected when its validation callback never answered 200 within the retry window. */
export const VALIDATION_CALLBACK_FAILED = 'validation_callback_failed';
