import { Module } from '@nestjs/common';
import { EmailModule } from '../email/index.js';
import { CustomersModule } from '../customers/index.js';
import { EmailOptOutsModule } from '../email-opt-outs/index.js';
import { ReferralLinksModule } from '../referral-links/index.js';
import { WidgetsModule } from '../widgets/index.js';
import { ShareQueries } from './read-models/share-queries.js';
import { CreateShareHandler, ReminderScheduler, ShareMailer } from './commands/share-commands.js';
import { ShareInstructions } from './commands/share-instructions.js';
import { V2SharesController } from './http/shares.controller.js';
import { IntegrationsModule } from '../integrations/index.js';
import { ShareActivity } from './read-models/share-activity.js';
import { ShareRequests } from './http/share-requests.js';
import { V1SharesController } from './http/v1-shares.controller.js';

@Module({
  imports: [IntegrationsModule, CustomersModule, WidgetsModule, ReferralLinksModule, EmailOptOutsModule, EmailModule],
  controllers: [V1SharesController, V2SharesController],
  providers: [CreateShareHandler, ShareMailer, ShareInstructions, ReminderScheduler, ShareActivity, ShareRequests, ShareQueries],
  exports: [ShareMailer, ReminderScheduler, ShareRequests, ShareQueries, ShareActivity],
})
export class SharesModule {}
