/**
 * The hand decision's own reading of the reward, on a real event store with the read models held
 * back: approving a reward the stream already shows approved (another request's approval, maybe
 * still on its way to the read models) answers only once the read models show it too.
 */
import { heldProjections } from '../../../test/support/held-projections.js';
import { Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { SqliteEventStore } from '../../platform/event-store/sqlite-event-store.js';
import { SalesQueries } from '../read-models/sales-queries.js';
import { WidgetQueries } from '../../widgets/index.js';
import { rewardStream } from '../domain/reward.js';
import { DecideRewardCommand, DecideRewardHandler } from './manual-decision.js';
import { RewardEvaluator } from './reward-evaluator.js';

const REWARD = 41;
const NOW = new Date('2026-11-25T12:00:00.000Z');

describe('DecideRewardHandler', () => {
  it('answers an approval of an approved reward once the read models show the approval', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const facts = {
      rewardId: REWARD,
      merchantId: 7,
      conversionId: REWARD,
      purchaseId: 40,
      widgetId: 3,
      advocateCustomerId: null,
      advocateEmailAddress: null,
      rewardType: 'credit',
      amount: 1,
    };
    await store.append(
      rewardStream(REWARD),
      [{ type: 'RewardRejected', data: { ...facts, reasons: ['not_new_customer'], evaluatedAt: NOW.toISOString() } }],
      'no_stream',
    );
    await store.append(
      rewardStream(REWARD),
      [{ type: 'RewardManuallyApproved', data: { ...facts, by: 'ops0', reason: null, decidedAt: NOW.toISOString() } }],
      0,
    );
    // The read models still show the reward rejected: the approval (position 2) is not applied yet.
    const projections = heldProjections(1n);
    const sales = { reward: async () => ({ id: REWARD, merchant_id: 7, conversion_id: REWARD, status: 'rejected' }) } as unknown as SalesQueries;
    // Nothing is decided or counted: a plan would be a second approval.
    const runner = { runTogether: async () => Promise.reject(new Error('no plan for an approved reward')) } as unknown as CommandRunner;
    const clock: Clock = { now: () => NOW };
    const handler = new DecideRewardHandler(runner, sales, {} as WidgetQueries, {} as RewardEvaluator, store, clock, projections.runner);

    const answer = handler.execute(new DecideRewardCommand({ merchantId: 7, rewardId: REWARD, approve: true, by: 'ops1', reason: null }));
    expect(await projections.holds(answer)).toBe(true);
    expect(projections.asked).toEqual([2n]);
    projections.applyUpTo(2n);
    await expect(answer).resolves.toBeUndefined();
    await store.close();
  });
});
