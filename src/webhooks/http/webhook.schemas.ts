/**
 * Response schemas of webhook.presenters.ts: the admin views of webhook endpoints, client-API
 * settings, custom headers and deliveries (docs/webhooks.md).
 */
import { arrayOf, bool, dateTime, int, nullable, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { ABANDON_REASONS, DELIVERY_STATUSES } from '../domain/webhook-delivery.js';
import { WEBHOOK_KINDS } from '../domain/webhook-kinds.js';

export const WEBHOOK_ENDPOINT = object({
  id: int('Service-assigned id'),
  url: str('Where the deliveries go'),
  events: arrayOf(oneOfStrings(WEBHOOK_KINDS), 'The kinds it receives: every current kind when all_events is true'),
  all_events: bool('Subscribed to every kind, including kinds added later (created or changed with events left out or null)'),
  created_at: dateTime(),
  last_modified_at: dateTime(),
});

export const CLIENT_API = object({
  share_instructions_url: nullable(str('Asked for the instructions of each share; null: none')),
  reward_validation_url: nullable(str('Asked to validate each reward (a widget may set its own); null: none')),
  last_modified_at: nullable(dateTime('When the URLs were last set; null until then')),
});

export const CUSTOM_HEADERS = object({
  headers: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Header name → value, sent with every webhook and client-API request; {} when none',
  },
  replace_signature: bool('Whether the custom headers replace the signature headers'),
  last_modified_at: nullable(dateTime('When the headers were last set; null until then')),
});

const ATTEMPT = object(
  {
    attempt: int('1 for the first request of the delivery, counting on across redeliveries', { minimum: 1 }),
    at: dateTime('When the request was sent'),
    url: str('The URL it was sent to (the endpoint may have changed since)'),
    status_code: nullable(int('The HTTP status answered; null when no answer came')),
    latency_ms: int('Time to the answer or the failure, in milliseconds', { minimum: 0 }),
    error: nullable(str('Why it failed: no answer (connection, timeout, address policy) or a status other than 200; null when it succeeded')),
    next_attempt_at: nullable(dateTime('When the next attempt is due; null when none follows')),
    before_redelivery: {
      type: 'boolean',
      enum: [true],
      description: 'Present only on an attempt sent before a redelivery was asked for and answered after it: not part of the new round',
    },
  },
  { optional: ['before_redelivery'] },
);

/**
 * The body that is POSTed: the envelope is fixed, `data` depends on the kind (docs/webhooks.md).
 * A delivery keeps the body it was scheduled with, on every retry and redelivery, so one scheduled
 * by an earlier release holds that release's `data`: it is not held to today's fields here.
 */
const PAYLOAD = object({
  id: str("The source event's id (also the `webhook-id` header): the same on every attempt and redelivery"),
  type: oneOfStrings(WEBHOOK_KINDS),
  created_at: dateTime('When the source event was recorded'),
  data: { type: 'object', additionalProperties: true, description: "The kind's fields (docs/webhooks.md), as they were when the delivery was scheduled" },
});

export const WEBHOOK_DELIVERY = object({
  id: int('Service-assigned id'),
  endpoint_id: int(),
  kind: oneOfStrings(WEBHOOK_KINDS),
  event_id: str("The source event's id (the payload's id)"),
  status: oneOfStrings(DELIVERY_STATUSES),
  created_at: dateTime(),
  next_attempt_at: nullable(dateTime('When the next attempt is due; null unless pending')),
  delivered_at: nullable(dateTime('When an attempt got a 200; null until then')),
  abandoned_at: nullable(dateTime('When it was given up; null unless abandoned')),
  abandon_reason: nullable(oneOfStrings(ABANDON_REASONS), 'null unless abandoned'),
  attempts: arrayOf(ATTEMPT, 'Every request sent, oldest first'),
  payload: PAYLOAD,
});
