/**
 * The client-API callbacks' request bodies and how their answers are read (spec §6 rule 2;
 * docs/webhooks.md). The share and reward flows build their requests here and read the
 * merchant's answer here, so the documented contract lives in one place. Pure.
 */
import type { RewardFacts } from '../../sales/domain/reward-events.js';
import type { ShareCreated } from '../../shares/domain/share-events.js';
import { PayloadOptions, shareData } from './webhook-kinds.js';

export type ClientApiKind = 'share_instructions' | 'reward_validation';

export interface ShareInstructionsRequest {
  type: 'share_instructions';
  share: Record<string, unknown>;
}

export interface RewardValidationRequest {
  type: 'reward_validation';
  reward: Record<string, unknown>;
}

/** Asked before a share's emails are sent; `share` is the same object as in `share.created`. */
export function shareInstructionsRequest(share: ShareCreated['data'], options: PayloadOptions): ShareInstructionsRequest {
  return { type: 'share_instructions', share: shareData(share, options) };
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

export type ShareInstructions = { action: 'allow' } | { action: 'block'; reason: string | null } | { action: 'replace_message'; message: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A 200 answer to share instructions: `{"action": "block", "message"?}` blocks the share's
 * emails, `{"action": "replace_message", "message": "<text>"}` sends them with that message,
 * anything else (`{"action": "allow"}`, an empty body, unknown actions) lets them go unchanged.
 */
export function readShareInstructions(json: unknown): ShareInstructions {
  if (!isObject(json)) return { action: 'allow' };
  if (json.action === 'block') return { action: 'block', reason: typeof json.message === 'string' ? json.message : null };
  if (json.action === 'replace_message' && typeof json.message === 'string' && json.message.trim() !== '') {
    return { action: 'replace_message', message: json.message };
  }
  return { action: 'allow' };
}

export type RewardValidation = { approved: true } | { approved: false; reason: string | null };

/** A 200 answer to reward validation approves, unless its body is `{"approved": false, "reason"?}`. */
export function readRewardValidation(json: unknown): RewardValidation {
  if (isObject(json) && json.approved === false) return { approved: false, reason: typeof json.reason === 'string' ? json.reason : null };
  return { approved: true };
}

/** Why a reward is rejected when its validation callback never answered 200 within the retry window. */
export const VALIDATION_CALLBACK_FAILED = 'validation_callback_failed';
