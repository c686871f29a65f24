/** Admin approves or rejects a reward by hand; who and why are kept in the event. */
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { SalesQueries } from '../../purchases/read-models/sales-queries.js';
import { WidgetQueries } from '../../widgets/read-models/widget-queries.js';
import { DEFAULT_CRITERIA } from '../../widgets/domain/widget.js';
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
    const result = await this.runner.run(
      rewardStream(reward.conversion_id),
      rewardDecider,
      { type: 'DecideManually', rewardId: c.rewardId, merchantId: c.merchantId, approve: c.approve, by: c.by, reason: c.reason, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: `admin:${c.by}` } },
    );
    // A hand-approved reward counts towards the advocate's caps, even past them.
    if (c.approve && result.events.length > 0) {
      const widget = await this.widgets.byId(c.merchantId, reward.widget_id);
      const facts = result.events[0].data as Parameters<RewardEvaluator['countAgainstCap']>[0];
      await this.evaluator.countAgainstCap(facts, widget?.settings.rewardCriteria ?? DEFAULT_CRITERIA, false);
    }
  }
}
