/** Sales: purchases, attribution, conversions and rewards, one feature as they decide together (runTogether). */
import { Module } from '@nestjs/common';
import { CouponsModule } from '../coupons/index.js';
import { CustomersModule } from '../customers/index.js';
import { ReferralLinksModule } from '../referral-links/index.js';
import { SharesModule } from '../shares/index.js';
import { WidgetsModule } from '../widgets/index.js';
import { SalesQueries } from './read-models/sales-queries.js';
import { DecideRewardHandler } from './commands/manual-decision.js';
import { RewardEvaluator } from './commands/reward-evaluator.js';
import { RewardValidator } from './commands/reward-validator.js';
import { IntegrationsModule } from '../integrations/index.js';
import { AttributionResolver } from './commands/attribution.js';
import { purchaseCommandHandlers } from './commands/purchase-commands.js';
import { AdminRewardsController, V2SalesController } from './http/sales.controllers.js';
import { SaleRequests } from './http/sale-requests.js';
import { V1SalesController } from './http/v1-sales.controller.js';
import { ConvertedRecipientsFromConversions } from './read-models/converted-recipients.js';

@Module({
  imports: [IntegrationsModule, CustomersModule, WidgetsModule, CouponsModule, ReferralLinksModule, SharesModule],
  controllers: [V1SalesController, V2SalesController, AdminRewardsController],
  providers: [
    ...purchaseCommandHandlers,
    AttributionResolver,
    RewardEvaluator,
    RewardValidator,
    DecideRewardHandler,
    ConvertedRecipientsFromConversions,
    SaleRequests,
    SalesQueries,
  ],
  exports: [RewardEvaluator, SaleRequests, SalesQueries, ConvertedRecipientsFromConversions],
})
export class SalesModule {}
