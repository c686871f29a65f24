import { Module } from '@nestjs/common';
import { V2EmailCapturesController } from './http/email-captures.controller.js';

@Module({ controllers: [V2EmailCapturesController] })
export class EmailCapturesModule {}
