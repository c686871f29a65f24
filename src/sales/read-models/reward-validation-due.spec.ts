import { ProjectedLog } from '../../../test/support/projection-spec.js';
import { DueDoc } from '../../platform/projections/due-queue.js';
import { rewardValidationDueProjection } from './reward-validation-due.js';

const facts = (rewardId: number) => ({
  rewardId,
  merchantId: 1,
  conversionId: rewardId + 100,
  purchaseId: 3,
  widgetId: 4,
  advocateCustomerId: null,
  advocateEmailAddress: null,
  rewardType: 'credit',
  amount: 5,
});
const stream = (rewardId: number) => `reward-of-conversion-${rewardId + 100}`;
const attempt = (rewardId: number, at: string, nextAttemptAt: string | null) => ({
  rewardId,
  merchantId: 1,
  attempt: 1,
  at,
  statusCode: nextAttemptAt ? 500 : 200,
  error: null,
  nextAttemptAt,
});

describe("reward validator's queue", () => {
  let log: ProjectedLog;
  let queue: () => Promise<Pick<DueDoc, 'id' | 'due_at' | 'stream'>[]>;
  beforeEach(() => {
    log = new ProjectedLog([rewardValidationDueProjection]);
    const due = log.collection<DueDoc>(rewardValidationDueProjection.collection);
    queue = async () => (await due.list({ limit: 100 })).map(({ id, due_at, stream }) => ({ id, due_at, stream }));
  });
  afterEach(() => log.close());

  it('holds a pending reward from its creation, then at the retry its failed call scheduled, at once after an attempt that scheduled none', async () => {
    await log.apply([stream(1), 'RewardPending', { ...facts(1), createdAt: '2026-05-01T10:00:00.000Z' }]);
    expect(await queue()).toEqual([{ id: 1, due_at: '2026-05-01T10:00:00.000Z', stream: stream(1) }]);
    await log.apply([stream(1), 'RewardValidationAttempted', attempt(1, '2026-05-01T10:00:01.000Z', '2026-05-01T10:05:00.000Z')]);
    expect(await queue()).toEqual([{ id: 1, due_at: '2026-05-01T10:05:00.000Z', stream: stream(1) }]);
    await log.apply([stream(1), 'RewardValidationAttempted', attempt(1, '2026-05-01T10:05:01.000Z', null)]);
    expect(await queue()).toEqual([{ id: 1, due_at: '2026-05-01T10:05:01.000Z', stream: stream(1) }]);
  });

  it('lets every decided reward go, and never holds one that was decided without waiting', async () => {
    const decided: [string, Record<string, unknown>][] = [
      ['RewardApproved', { evaluatedAt: '2026-05-01T11:00:00.000Z' }],
      ['RewardRejected', { reasons: ['validation_callback_rejected'], evaluatedAt: '2026-05-01T11:00:00.000Z' }],
      ['RewardManuallyApproved', { by: 'admin', reason: null, decidedAt: '2026-05-01T11:00:00.000Z' }],
      ['RewardManuallyRejected', { by: 'admin', reason: null, decidedAt: '2026-05-01T11:00:00.000Z' }],
    ];
    for (const [i, [type, data]] of decided.entries()) {
      await log.apply([stream(i), 'RewardPending', { ...facts(i), createdAt: '2026-05-01T10:00:00.000Z' }], [stream(i), type, { ...facts(i), ...data }]);
    }
    await log.apply([stream(9), 'RewardApproved', { ...facts(9), evaluatedAt: '2026-05-01T11:00:00.000Z' }]);
    expect(await queue()).toEqual([]);
  });
});
