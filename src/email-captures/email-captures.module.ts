import { Module } from '@nestjs/common';
import { ReferralLinksModule } from '../referral-links/referral-links.module.js';
import { WidgetsModule } from '../widgets/widgets.module.js';
import { EmailCaptureRecorder } from './commands/capture-email.js';
import { V2EmailCapturesController } from './http/email-captures.controller.js';

@Module({
  imports: [WidgetsModule, ReferralLinksModule],
  controllers: [V2EmailCapturesController],
  providers: [EmailCaptureRecorder],
  exports: [EmailCaptureRecorder],
})
export class EmailCapturesModule {}
