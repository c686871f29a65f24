/**
 * The reward validator on a real event store and read store, with the merchant's endpoint and the
 * command runner replaced: a reward is asked about once at a time, also while the answer it gave
 * is still being committed (a pass in that window asked the merchant a second time).
 */
import { eventually } from '../../../test/support/eventually.js';
import { Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { Config } from '../../platform/config.js';
import { SqliteEventStore } from '../../platform/event-store/sqlite-event-store.js';
import { docKey } from '../../platform/ids.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { MemoryReadStore } from '../../platform/read-store/memory-read-store.js';
import { DueDoc } from '../../platform/projections/due-queue.js';
import { ClientApiCaller, IntegrationSettingsQueries } from '../../integrations/index.js';
import { WidgetQueries } from '../../widgets/index.js';
import { rewardStream } from '../domain/reward.js';
import { rewardValidationDueProjection } from '../read-models/reward-validation-due.js';
import { RewardEvaluator } from './reward-evaluator.js';
import { RewardValidator } from './reward-validator.js';

const REWARD = 41;
const NOW = new Date('2026-11-25T12:00:00.000Z');

describe('RewardValidator', () => {
  let store: SqliteEventStore;
  beforeEach(() => {
    store = new SqliteEventStore({ path: ':memory:' });
  });
  afterEach(async () => {
    await store.close();
  });

  it('does not ask about a reward again while the approval of its first answer is being committed', async () => {
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
    await store.append(rewardStream(REWARD), [{ type: 'RewardPending', data: { ...facts, createdAt: NOW.toISOString() } }], 'no_stream');
    const readStore = new MemoryReadStore();
    const due: DueDoc = { _id: docKey(REWARD), due_at: NOW.toISOString(), created_at: NOW.toISOString(), id: REWARD, stream: rewardStream(REWARD) };
    await readStore.collection<DueDoc>(rewardValidationDueProjection.collection).put(due, 1n);

    let asked = 0;
    const caller = { call: async () => ((asked += 1), { ok: true, status: 200, json: {} }) } as unknown as ClientApiCaller;
    // The completion's commit takes as long as the test wants; the attempt before it is recorded at once.
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let completions = 0;
    const runner = {
      run: async () => ({ events: [] }),
      runTogether: async () => {
        completions += 1;
        await committing;
        return { value: undefined };
      },
    } as unknown as CommandRunner;
    const widgets = { byId: async () => null } as unknown as WidgetQueries;
    const integrations = { clientApi: async () => ({ rewardValidationUrl: 'http://127.0.0.1:9/validate' }) } as unknown as IntegrationSettingsQueries;
    const config = { webhookRetryWindowMs: 86_400_000, webhookRetryIntervalMs: 3_600_000, schedulerTickMs: 1000 } as Config;
    const clock: Clock = { now: () => NOW };
    const validator = new RewardValidator(
      runner,
      widgets,
      {} as RewardEvaluator,
      caller,
      integrations,
      {} as ProjectionRunner,
      store,
      config,
      clock,
      readStore,
    );
    const pass = () => (validator as unknown as { validateDue(): Promise<void> }).validateDue();

    await pass();
    await eventually(async () => expect(completions).toBe(1));
    // The answer is in and its approval is being committed: the reward is still due in the read model.
    await pass();
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toBe(1);
    commit();
    await validator.onApplicationShutdown();
  });
});
