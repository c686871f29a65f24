/** Admin approves or rejects a reward by hand; who and why are kept in the event. */
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { SalesQueries } from '../../purchases/read-models/sales-queries.js';
import { WidgetQueries } from '../../widgets/read-models/widget-queries.js';
import { DEFAULT_CRITERIA } from '../../widgets/domain/widget.js';
import { RewardFacts } from '../domain/reward-events.js';
import { rewardDecider, rewardStream } from '../domain/reward.js';
import { RewardEvaluator } from './reward-evaluator.js';

export class DecideRewardCommand extends Command<void> {
  constructor(
    readonly merchantId: number,
    readonly rewardId: number,
    readonly approve: boolean,
    readonly by: string,
    readonly reason: string | null,
  ) {
    super();
  }
}

@CommandHandler(DecideRewardCommand)
export class DecideRewardHandler implements ICommandHandler<DecideRewardCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly sales: SalesQueries,
    private readonly widgets: WidgetQueries,
    private readonly evaluator: RewardEvaluator,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(c: DecideRewardCommand): Promise<void> {
    const reward = await this.sales.reward(c.merchantId, c.rewardId);
    const widget = c.approve ? await this.widgets.byId(c.merchantId, reward.widget_id) : undefined;
    // The decision and, for an approval, its count towards the advocate's caps (even past them)
    // are one plan: one commit where the store can, so a crash cannot keep the one without the other.
    await this.runner.runTogether(
      async (step) => {
        const decided = await step(rewardStream(reward.conversion_id), rewardDecider, {
          type: 'DecideManually',
          rewardId: c.rewardId,
          merchantId: c.merchantId,
          approve: c.approve,
          by: c.by,
          reason: c.reason,
          now: this.clock.now(),
        });
        if (c.approve && decided.length > 0) {
          const facts = decided[0].data as RewardFacts;
          await this.evaluator.countInPlan(step, facts, widget?.settings.rewardCriteria ?? DEFAULT_CRITERIA, false);
        }
      },
      { metadata: { merchantId: c.merchantId, actor: `admin:${c.by}` } },
    );
  }
}
