/** Outgoing email: the email port, the mailer that drains the outbox, and the admin outbox. */
import { Module } from '@nestjs/common';
import { EmailOptOutsModule } from '../email-opt-outs/index.js';
import { CONFIG, type Config } from '../platform/config.js';
import { createEmailSender, EMAIL_SENDER } from './email-sender.js';
import { AdminOutboxController } from './http/admin-outbox.controller.js';
import { Mailer } from './mailer.js';

@Module({
  imports: [EmailOptOutsModule],
  controllers: [AdminOutboxController],
  providers: [{ provide: EMAIL_SENDER, inject: [CONFIG], useFactory: (config: Config) => createEmailSender(config.smtpUrl) }, Mailer],
  exports: [Mailer, EMAIL_SENDER],
})
export class EmailModule {}
