/** Purchases, attribution, conversions and rewards (issue 4): one module, as they decide together. */
import { Module } from '@nestjs/common';
import { DecideRewardHandler } from '../rewards/commands/manual-decision.js';
import { RewardEvaluator } from '../rewards/commands/reward-evaluator.js';
import { AttributionResolver } from './commands/attribution.js';
import { purchaseCommandHandlers } from './commands/purchase-commands.js';
import { AdminRewardsController, V2SalesController } from './http/sales.controllers.js';
import { ConvertedRecipientsFromConversions } from './read-models/converted-recipients.js';

@Module({
  controllers: [V2SalesController, AdminRewardsController],
  providers: [...purchaseCommandHandlers, AttributionResolver, RewardEvaluator, DecideRewardHandler, ConvertedRecipientsFromConversions],
  exports: [RewardEvaluator],
})
export class PurchasesModule {}
