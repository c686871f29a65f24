/** The rewards read model: one record per evaluated conversion. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { RewardEvent } from '../domain/reward-events.js';
import { RewardStatus, RewardValidationAttempted } from '../domain/reward.js';

export interface RewardDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  conversion_id: number;
  purchase_id: number;
  widget_id: number;
  advocate_customer_id: number | null;
  advocate_email_address: string | null;
  reward_type: string;
  amount: number;
  status: RewardStatus;
  rejected_reasons: string[];
  evaluated_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  validation_attempts: { at: string; status_code: number | null; error: string | null; next_attempt_at: string | null }[];
  next_validation_at: string | null;
  last_modified_at: string;
}

export const rewardsCollection: CollectionDef = {
  name: 'rewards',
  indexes: [['merchant_id'], ['merchant_id', 'status'], ['merchant_id', 'widget_id'], ['merchant_id', 'advocate_customer_id']],
  personal: {
    byAddress: [{ match: 'advocate_email_address', erase: ['advocate_email_address'] }],
    byCustomer: [{ match: 'advocate_customer_id', erase: ['advocate_email_address'] }],
  },
};

export const rewardsProjection = defineProjection<RewardDoc, RewardEvent | RewardValidationAttempted>()({
  name: 'rewards',
  collection: rewardsCollection,
  handles: ['RewardPending', 'RewardApproved', 'RewardRejected', 'RewardManuallyApproved', 'RewardManuallyRejected', 'RewardValidationAttempted'],
  keys: (event) => [docKey(event.data.rewardId)],
  evolve(doc, event, key) {
    if (event.type === 'RewardValidationAttempted') {
      if (!doc) return null;
      const d = event.data;
      return {
        ...doc,
        validation_attempts: [...doc.validation_attempts, { at: d.at, status_code: d.statusCode, error: d.error, next_attempt_at: d.nextAttemptAt }],
        next_validation_at: d.nextAttemptAt,
        last_modified_at: d.at,
      };
    }
    const d = event.data;
    const base: RewardDoc = doc ?? {
      _id: key,
      id: d.rewardId,
      merchant_id: d.merchantId,
      conversion_id: d.conversionId,
      purchase_id: d.purchaseId,
      widget_id: d.widgetId,
      advocate_customer_id: d.advocateCustomerId,
      advocate_email_address: d.advocateEmailAddress,
      reward_type: d.rewardType,
      amount: d.amount,
      status: 'pending',
      rejected_reasons: [],
      evaluated_at: null,
      decided_by: null,
      decision_reason: null,
      validation_attempts: [],
      next_validation_at: null,
      created_at: 'createdAt' in d ? d.createdAt : 'evaluatedAt' in d ? d.evaluatedAt : d.decidedAt,
      last_modified_at: '',
    };
    switch (event.type) {
      case 'RewardPending':
        return { ...base, status: 'pending', last_modified_at: event.data.createdAt };
      case 'RewardApproved':
        return {
          ...base,
          status: 'approved',
          rejected_reasons: [],
          evaluated_at: event.data.evaluatedAt,
          next_validation_at: null,
          last_modified_at: event.data.evaluatedAt,
        };
      case 'RewardRejected':
        return {
          ...base,
          status: 'rejected',
          rejected_reasons: event.data.reasons,
          decision_reason: event.data.note ?? null,
          evaluated_at: event.data.evaluatedAt,
          next_validation_at: null,
          last_modified_at: event.data.evaluatedAt,
        };
      case 'RewardManuallyApproved':
      case 'RewardManuallyRejected':
        return {
          ...base,
          status: event.type === 'RewardManuallyApproved' ? 'approved' : 'rejected',
          // The reasons are those of the reward's last decision: a hand rejection is one of its own
          // (a merchant's view could not tell it from anything else), and an approval has none.
          rejected_reasons: event.type === 'RewardManuallyApproved' ? [] : ['manually_rejected'],
          evaluated_at: event.data.decidedAt,
          decided_by: event.data.by,
          decision_reason: event.data.reason,
          next_validation_at: null,
          last_modified_at: event.data.decidedAt,
        };
    }
  },
});
