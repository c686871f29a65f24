import { Module } from '@nestjs/common';
import { CreateShareHandler, ReminderScheduler, ShareMailer } from './commands/share-commands.js';
import { V2SharesController } from './http/shares.controller.js';
import { ShareActivity } from './read-models/share-activity.js';

@Module({
  controllers: [V2SharesController],
  providers: [CreateShareHandler, ShareMailer, ReminderScheduler, ShareActivity],
  exports: [ShareMailer, ReminderScheduler],
})
export class SharesModule {}
