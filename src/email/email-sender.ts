/**
 * The email port. The default adapter keeps messages in the admin outbox only (nothing leaves
 * the machine); with SMTP_URL set, nodemailer delivers them.
 */
import { Logger } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import type { EmailSenderName } from './domain/email-events.js';

export interface OutgoingEmail {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
}

export interface EmailSender {
  readonly name: EmailSenderName;
  send(message: OutgoingEmail): Promise<void>;
  close(): Promise<void>;
}

export const EMAIL_SENDER = Symbol('EmailSender');

/** Delivery is the outbox itself: GET /admin/merchants/{id}/outbox lists every message. */
export class OutboxEmailSender implements EmailSender {
  readonly name = 'outbox' as const;
  async send(): Promise<void> {}
  async close(): Promise<void> {}
}

export class SmtpEmailSender implements EmailSender {
  readonly name = 'smtp' as const;
  private readonly transport: Transporter;

  constructor(url: string) {
    this.transport = nodemailer.createTransport(url);
  }

  async send(message: OutgoingEmail): Promise<void> {
    await this.transport.sendMail({
      from: message.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      messageId: `<${message.messageId}@referral-service>`,
    });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

export function createEmailSender(smtpUrl: string | undefined): EmailSender {
  if (!smtpUrl) return new OutboxEmailSender();
  Logger.log('outgoing email goes through SMTP', 'Email');
  return new SmtpEmailSender(smtpUrl);
}
