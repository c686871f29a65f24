import { Module } from '@nestjs/common';
import { CreateShareHandler, ReminderScheduler, ShareMailer } from './commands/share-commands.js';
import { ShareInstructions } from './commands/share-instructions.js';
import { V2SharesController } from './http/shares.controller.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ShareActivity } from './read-models/share-activity.js';

@Module({
  imports: [WebhooksModule],
  controllers: [V2SharesController],
  providers: [CreateShareHandler, ShareMailer, ShareInstructions, ReminderScheduler, ShareActivity],
  exports: [ShareMailer, ReminderScheduler],
})
export class SharesModule {}
