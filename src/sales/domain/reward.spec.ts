import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { RewardFacts } from './reward-events.js';
import { CapReachedError, ledgerDecider, rewardDecider, RewardStreamEvent } from './reward.js';

const now = new Date('2026-07-01T00:00:00.000Z');
const at = now.toISOString();
const facts: RewardFacts = {
  rewardId: 70,
  merchantId: 1,
  conversionId: 60,
  purchaseId: 50,
  widgetId: 3,
  advocateCustomerId: 11,
  advocateEmailAddress: 'ann@example.com',
  rewardType: 'fixed_cash',
  amount: 10,
};
const approved: RewardStreamEvent = { type: 'RewardApproved', data: { ...facts, evaluatedAt: at } };
const rejected: RewardStreamEvent = { type: 'RewardRejected', data: { ...facts, reasons: ['self_referral'], evaluatedAt: at } };
const pending: RewardStreamEvent = { type: 'RewardPending', data: { ...facts, createdAt: at } };

describe('reward decider', () => {
  it('evaluates a conversion once', () => {
    given(rewardDecider, [])
      .when({ type: 'EvaluateReward', facts, outcome: { kind: 'approved' }, now })
      .then([approved]);
    given(rewardDecider, [])
      .when({ type: 'EvaluateReward', facts, outcome: { kind: 'rejected', reasons: ['self_referral'] }, now })
      .then([rejected]);
    given(rewardDecider, [approved])
      .when({ type: 'EvaluateReward', facts, outcome: { kind: 'rejected', reasons: [] }, now })
      .then([]);
  });

  it('records a conversion decided with no reward offered, once, and evaluates it no more', () => {
    const decline = { type: 'DeclineReward' as const, conversionId: 60, merchantId: 1, widgetId: 3, purchaseId: 50, now };
    const notOffered: RewardStreamEvent = { type: 'RewardNotOffered', data: { conversionId: 60, merchantId: 1, widgetId: 3, purchaseId: 50, decidedAt: at } };
    given(rewardDecider, []).when(decline).then([notOffered]);
    given(rewardDecider, [notOffered]).when(decline).then([]);
    // A reward added to the widget later does not reach back.
    given(rewardDecider, [notOffered])
      .when({ type: 'EvaluateReward', facts, outcome: { kind: 'approved' }, now })
      .then([]);
    given(rewardDecider, [approved]).when(decline).then([]);
  });

  it('keeps a reward pending until its validation completes, recording attempts', () => {
    given(rewardDecider, [])
      .when({ type: 'EvaluateReward', facts, outcome: { kind: 'pending' }, now })
      .then([pending]);
    given(rewardDecider, [pending])
      .when({ type: 'RecordValidationAttempt', rewardId: 70, statusCode: 500, error: null, nextAttemptAt: new Date('2026-07-01T01:00:00.000Z'), now })
      .then([
        {
          type: 'RewardValidationAttempted',
          data: { rewardId: 70, merchantId: 1, attempt: 1, at, statusCode: 500, error: null, nextAttemptAt: '2026-07-01T01:00:00.000Z' },
        },
      ]);
    given(rewardDecider, [pending])
      .when({ type: 'CompleteValidation', rewardId: 70, outcome: { kind: 'approved' }, now })
      .then([approved]);
    given(rewardDecider, [pending, approved])
      .when({ type: 'CompleteValidation', rewardId: 70, outcome: { kind: 'rejected', reasons: ['validation_callback_failed'] }, now })
      .then([]);
  });

  it('lets an admin approve a pending or rejected reward, and reject a pending one, with who and why', () => {
    const manual = { ...facts, by: 'ops@shop', reason: 'goodwill', decidedAt: at };
    given(rewardDecider, [rejected])
      .when({ type: 'DecideManually', rewardId: 70, merchantId: 1, approve: true, by: 'ops@shop', reason: 'goodwill', now })
      .then([{ type: 'RewardManuallyApproved', data: manual }]);
    given(rewardDecider, [pending])
      .when({ type: 'DecideManually', rewardId: 70, merchantId: 1, approve: false, by: 'ops@shop', reason: 'goodwill', now })
      .then([{ type: 'RewardManuallyRejected', data: manual }]);
    given(rewardDecider, [approved])
      .when({ type: 'DecideManually', rewardId: 70, merchantId: 1, approve: false, by: 'x', reason: null, now })
      .thenThrows(ConflictError);
    given(rewardDecider, [approved])
      .when({ type: 'DecideManually', rewardId: 70, merchantId: 2, approve: true, by: 'x', reason: null, now })
      .thenThrows(NotFoundError);
    given(rewardDecider, [approved]).when({ type: 'DecideManually', rewardId: 70, merchantId: 1, approve: true, by: 'x', reason: null, now }).then([]);
  });
});

describe('advocate reward ledger', () => {
  const rule = { maxCount: 1, maxAmount: null, windowDays: null };
  const counted = { type: 'AdvocateRewardCounted' as const, data: { merchantId: 1, widgetId: 3, rewardId: 70, amount: 10, at, overCap: false } };

  it('counts a reward once and refuses one over the cap', () => {
    given(ledgerDecider, []).when({ type: 'CountReward', merchantId: 1, widgetId: 3, rewardId: 70, amount: 10, rule, enforce: true, now }).then([counted]);
    given(ledgerDecider, [counted]).when({ type: 'CountReward', merchantId: 1, widgetId: 3, rewardId: 70, amount: 10, rule, enforce: true, now }).then([]);
    given(ledgerDecider, [counted])
      .when({ type: 'CountReward', merchantId: 1, widgetId: 3, rewardId: 71, amount: 10, rule, enforce: true, now })
      .thenThrows(CapReachedError);
  });

  it('a cap over a window counts the rewards inside it only, however long the ledger', () => {
    const day = 86_400_000;
    const countedOn = (rewardId: number, daysBefore: number) => ({
      type: 'AdvocateRewardCounted' as const,
      data: { merchantId: 1, widgetId: 3, rewardId, amount: 10, at: new Date(now.getTime() - daysBefore * day).toISOString(), overCap: false },
    });
    const history = [...Array(500).keys()].map((i) => countedOn(100 + i, 400 - i * 0.75)).concat([countedOn(1, 5), countedOn(2, 1)]);
    const windowed = { maxCount: 3, maxAmount: 30, windowDays: 7 };
    const count = (rewardId: number) => ({
      type: 'CountReward' as const,
      merchantId: 1,
      widgetId: 3,
      rewardId,
      amount: 10,
      rule: windowed,
      enforce: true,
      now,
    });
    // 500 rewards long ago, two in the last week: a third fits, a fourth would not.
    expect(given(ledgerDecider, history).when(count(3)).events()).toHaveLength(1);
    given(ledgerDecider, [...history, countedOn(3, 0)])
      .when(count(4))
      .thenThrows(CapReachedError);
    given(ledgerDecider, history).when(count(150)).then([]);
  });

  it('records a manual grant over the cap without refusing it', () => {
    const events = given(ledgerDecider, [counted])
      .when({ type: 'CountReward', merchantId: 1, widgetId: 3, rewardId: 71, amount: 10, rule, enforce: false, now })
      .events();
    expect(events[0].data.overCap).toBe(true);
  });
});
