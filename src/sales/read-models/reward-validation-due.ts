/**
 * The reward validator's queue (src/platform/projections/due-queue.ts): one document per
 * pending reward, due when its reward became pending, then at the next attempt its last failed
 * call scheduled (at once when an attempt scheduled none: its outcome is still to be recorded).
 * A decided reward leaves the queue.
 */
import { dueAfterAttempt, dueQueueProjection } from '../../platform/projections/due-queue.js';
import { RewardValidationAttempted } from '../domain/reward.js';
import { RewardEvent } from '../domain/reward-events.js';

export const rewardValidationDueProjection = dueQueueProjection<RewardEvent | RewardValidationAttempted>()({
  name: 'reward_validation_due_at',
  handles: ['RewardPending', 'RewardValidationAttempted', 'RewardApproved', 'RewardRejected', 'RewardManuallyApproved', 'RewardManuallyRejected'],
  subject: (event) => event.data.rewardId,
  dueAfter(event, queued) {
    switch (event.type) {
      case 'RewardPending':
        return event.data.createdAt;
      case 'RewardValidationAttempted':
        return dueAfterAttempt(event.data, queued);
      default:
        return null;
    }
  },
});
