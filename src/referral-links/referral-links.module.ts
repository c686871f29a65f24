import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/index.js';
import { WidgetsModule } from '../widgets/index.js';
import { ReferralCodes } from './commands/referral-codes.js';
import { ReferralLinkQueries } from './read-models/referral-link-queries.js';
import { CouponsModule } from '../coupons/index.js';
import { referralLinkCommandHandlers } from './commands/referral-link-commands.js';
import { AdminReferralLinksController } from './http/admin-referral-links.controller.js';
import { ClickAdmission } from './http/click-admission.js';
import { TrackableLinkController } from './http/trackable-link.controller.js';
import { V1ReferralCodesController } from './http/v1-referral-codes.controller.js';
import { V2ReferralLinksController } from './http/v2-referral-links.controller.js';
import { ReferralCodeActivity } from './read-models/referral-code-activity.js';

@Module({
  imports: [CouponsModule, CustomersModule, WidgetsModule],
  controllers: [V1ReferralCodesController, V2ReferralLinksController, TrackableLinkController, AdminReferralLinksController],
  providers: [...referralLinkCommandHandlers, ReferralCodeActivity, ClickAdmission, ReferralLinkQueries],
  exports: [ReferralCodes, ReferralLinkQueries, ReferralCodeActivity],
})
export class ReferralLinksModule {}
