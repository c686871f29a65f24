/** Purchases, attribution, conversions and rewards (issue 4): one module, as they decide together. */
import { Module } from '@nestjs/common';
import { DecideRewardHandler } from './commands/manual-decision.js';
import { RewardEvaluator } from './commands/reward-evaluator.js';
import { RewardValidator } from './commands/reward-validator.js';
import { IntegrationsModule } from '../integrations/integrations.module.js';
import { AttributionResolver } from './commands/attribution.js';
import { purchaseCommandHandlers } from './commands/purchase-commands.js';
import { AdminRewardsController, V2SalesController } from './http/sales.controllers.js';
import { SaleRequests } from './http/sale-requests.js';
import { V1SalesController } from './http/v1-sales.controller.js';
import { ConvertedRecipientsFromConversions } from './read-models/converted-recipients.js';

@Module({
  imports: [IntegrationsModule],
  controllers: [V1SalesController, V2SalesController, AdminRewardsController],
  providers: [
    ...purchaseCommandHandlers,
    AttributionResolver,
    RewardEvaluator,
    RewardValidator,
    DecideRewardHandler,
    ConvertedRecipientsFromConversions,
    SaleRequests,
  ],
  exports: [RewardEvaluator, SaleRequests],
})
export class SalesModule {}
