import { Module } from '@nestjs/common';
import { CreateShareHandler, ReminderScheduler, ShareMailer } from './commands/share-commands.js';
import { ShareInstructions } from './commands/share-instructions.js';
import { ReferralCodes } from '../referral-links/commands/referral-codes.js';
import { V2SharesController } from './http/shares.controller.js';
import { IntegrationsModule } from '../integrations/integrations.module.js';
import { ShareActivity } from './read-models/share-activity.js';
import { ShareRequests } from './http/share-requests.js';
import { V1SharesController } from './http/v1-shares.controller.js';

@Module({
  imports: [IntegrationsModule],
  controllers: [V1SharesController, V2SharesController],
  providers: [CreateShareHandler, ShareMailer, ShareInstructions, ReminderScheduler, ShareActivity, ShareRequests, ReferralCodes],
  exports: [ShareMailer, ReminderScheduler, ShareRequests],
})
export class SharesModule {}
