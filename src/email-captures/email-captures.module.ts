import { Module } from '@nestjs/common';
import { EmailCaptureRecorder } from './commands/capture-email.js';
import { V2EmailCapturesController } from './http/email-captures.controller.js';

@Module({ controllers: [V2EmailCapturesController], providers: [EmailCaptureRecorder], exports: [EmailCaptureRecorder] })
export class EmailCapturesModule {}
