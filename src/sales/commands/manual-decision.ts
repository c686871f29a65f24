/** Admin approves or rejects a reward by hand; who and why are kept in the event. */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner, PlanAbandoned, unlessAbandoned } from '../../platform/command-runner.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { fold } from '../../platform/decider.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { SalesQueries } from '../read-models/sales-queries.js';
import { WidgetQueries, DEFAULT_CRITERIA } from '../../widgets/index.js';
import { type RewardCommand, rewardDecider, RewardStreamEvent, rewardStream } from '../domain/reward.js';
import { RewardEvaluator } from './reward-evaluator.js';

export class DecideRewardCommand extends UseCase<UseCaseInput<Extract<RewardCommand, { type: 'DecideManually' }>>, void> {}

@CommandHandler(DecideRewardCommand)
export class DecideRewardHandler implements ICommandHandler<DecideRewardCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly sales: SalesQueries,
    private readonly widgets: WidgetQueries,
    private readonly evaluator: RewardEvaluator,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly projections: ProjectionRunner,
  ) {}

  async execute({ input: c }: DecideRewardCommand): Promise<void> {
    const reward = await this.sales.reward(c.merchantId, c.rewardId);
    const stream = rewardStream(reward.conversion_id);
    // The reward's facts (advocate, widget, amount) never change once evaluated.
    const history = c.approve ? await this.store.readStream(stream) : [];
    const state = c.approve ? fold(rewardDecider, history as unknown as RewardStreamEvent[]) : null;
    // Approved already: nothing to decide or count (a store without one-commit plans would count
    // first). The answer shows the approval, as the runner's to a decision to append nothing does:
    // it may be another request's, whose events the read models have not applied yet.
    if (state?.status === 'approved') return this.projections.waitFor(history[history.length - 1].position);
    const facts = state?.facts ?? null;
    const widget = facts ? await this.widgets.byId(c.merchantId, facts.widgetId) : undefined;
    // The decision and, for an approval, its count towards the advocate's caps (even past them)
    // are one plan: one commit where the store can, so a crash cannot keep the one without the other.
    // The ledger's turn is taken before the reward's, as every plan takes them (CommandRunner):
    // the validation callback's completion, taking them the other way, deadlocked with this.
    await unlessAbandoned(
      this.runner.runTogether(
        async (step) => {
          if (facts) await this.evaluator.countInPlan(step, facts, widget?.settings.rewardCriteria ?? DEFAULT_CRITERIA, false);
          const decided = await step(stream, rewardDecider, { type: 'DecideManually', ...c, now: this.clock.now() });
          // Nothing to decide (approving an approved reward): nor anything to count.
          if (decided.length === 0) throw new PlanAbandoned();
        },
        { metadata: { merchantId: c.merchantId, actor: `admin:${c.by}` } },
      ),
    );
  }
}
