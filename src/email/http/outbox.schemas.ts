/** Response schema of admin-outbox.controller.ts: one message of the outbox. */
import { dateTime, int, nullable, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { EMAIL_REPLY_MAX_LENGTH, EMAIL_SENDERS } from '../domain/email-events.js';
import { OUTBOX_KINDS, OUTBOX_STATUSES } from '../read-models/outbox.projection.js';

export const OUTBOX_MESSAGE = object({
  id: str('The message id (also its Message-ID, `<id@referral-service>`)'),
  to: nullable(str('Recipient address, as written'), 'null once erased (docs/privacy.md)'),
  subject: nullable(str(), 'null once erased'),
  text: nullable(str('The plain-text body'), 'null once erased'),
  kind: oneOfStrings(OUTBOX_KINDS, "A share's email to a recipient, a reminder, or the confirmation of a personal-data erasure"),
  share_id: nullable(int('The share the message is about'), 'null for an erasure confirmation'),
  user_data_deletion_id: nullable(int('The erasure job a confirmation is about'), 'null for other kinds'),
  reminder_email_id: nullable(int('The reminder email, for a reminder; else null')),
  status: oneOfStrings(
    OUTBOX_STATUSES,
    'queued: not yet taken by a sender (tried again while delivery fails for now: SMTP down, a 4xx reply); delivered; suppressed: the address opted out before it went; failed: the receiving server refused it for good (a 5xx reply), not tried again',
  ),
  created_at: dateTime('When the service decided to send it'),
  delivered_at: nullable(dateTime('When a sender took it; null until then')),
  delivered_via: nullable(
    oneOfStrings(EMAIL_SENDERS),
    'smtp: sent; outbox: kept here and not sent (no SMTP_URL, or the sandbox); null: not delivered, or delivered before the sender was recorded',
  ),
  failure: nullable(
    object({
      reply_code: int('The SMTP reply code (5xx)', { minimum: 500, maximum: 599 }),
      reply: str(`The server's reply as it answered, control characters made spaces, at most ${EMAIL_REPLY_MAX_LENGTH} characters`),
      failed_at: dateTime('When the server refused it'),
    }),
    'Why the receiving server refused it, for a failed message; else null',
  ),
});
