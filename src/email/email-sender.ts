/**
 * The email port. The default adapter keeps messages in the admin outbox only (nothing leaves
 * the machine); with SMTP_URL set, nodemailer delivers them.
 */
import { Logger } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { EMAIL_REPLY_MAX_LENGTH, type EmailSenderName } from './domain/email-events.js';

export interface OutgoingEmail {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
}

export interface EmailSender {
  readonly name: EmailSenderName;
  /** Resolves once the message is taken; rejects with EmailRefused when it never will be, with anything else when it may be later. */
  send(message: OutgoingEmail): Promise<void>;
  close(): Promise<void>;
}

/**
 * The receiving server refused the message for good: sending it again would get the same answer.
 * Any other error of `send` is temporary (the server down or busy, a 4xx reply, a timeout).
 */
export class EmailRefused extends Error {
  /** `reply`: the server's reply, control characters made spaces, at most EMAIL_REPLY_MAX_LENGTH characters. */
  readonly reply: string;

  constructor(
    readonly replyCode: number,
    reply: string,
  ) {
    // Cut by characters (code points), never inside one, so no lone surrogate is stored.
    // eslint-disable-next-line no-control-regex -- control characters become spaces
    const text = Array.from(reply.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim())
      .slice(0, EMAIL_REPLY_MAX_LENGTH)
      .join('');
    super(`refused by the receiving server: ${text}`);
    this.reply = text;
  }
}

/** SMTP commands whose reply is about this message: its recipient, and its content (the DATA command and the reply after the data). */
const MESSAGE_COMMANDS: ReadonlySet<string> = new Set(['RCPT TO', 'DATA']);

/**
 * nodemailer's error as an EmailRefused when the server refused the message for good, else
 * undefined. For good: a 5xx reply (RFC 5321 §4.2.1, a permanent negative completion) to RCPT TO
 * or DATA, except 503 (bad sequence of commands: the session was out of step, the message was not
 * judged; nodemailer's own isPermanentResponseCode excepts it too). A 5xx to the session's own steps
 * (greeting, EHLO, STARTTLS, AUTH, MAIL FROM) is about the service, its credentials or its sender
 * address, and every message would get it alike: the operator fixes that, and the messages wait
 * meanwhile as they do while the server is down.
 */
export function permanentRefusal(error: unknown): EmailRefused | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { responseCode, command, response } = error as { responseCode?: unknown; command?: unknown; response?: unknown };
  if (typeof responseCode !== 'number' || responseCode < 500 || responseCode > 599 || responseCode === 503) return undefined;
  if (typeof command !== 'string' || !MESSAGE_COMMANDS.has(command)) return undefined;
  return new EmailRefused(responseCode, typeof response === 'string' ? response : String(responseCode));
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
    try {
      await this.transport.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        messageId: `<${message.messageId}@referral-service>`,
      });
    } catch (error) {
      throw permanentRefusal(error) ?? error;
    }
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
