import { Module } from '@nestjs/common';
import { ReferralLinksModule } from '../referral-links/index.js';
import { WidgetsModule } from '../widgets/index.js';
import { CaptureEmailHandler } from './commands/capture-email.js';
import { V2EmailCapturesController } from './http/email-captures.controller.js';

@Module({
  imports: [WidgetsModule, ReferralLinksModule],
  controllers: [V2EmailCapturesController],
  providers: [CaptureEmailHandler],
})
export class EmailCapturesModule {}
