import { Module } from '@nestjs/common';
import { ReferralLinksModule } from '../referral-links/index.js';
import { WidgetsModule } from '../widgets/index.js';
import { EmailCaptureRecorder } from './commands/capture-email.js';
import { V2EmailCapturesController } from './http/email-captures.controller.js';

@Module({
  imports: [WidgetsModule, ReferralLinksModule],
  controllers: [V2EmailCapturesController],
  providers: [EmailCaptureRecorder],
  exports: [EmailCaptureRecorder],
})
export class EmailCapturesModule {}
