/**
 * One webhook delivery: one source event to one endpoint, in its own stream
 * `webhook-delivery-<endpointId>-<eventId>`. The stream's existence is what makes scheduling
 * idempotent (a replay of the source event finds it and decides nothing), and its events are
 * the delivery log: every attempt, then delivered or abandoned, and redeliveries.
 *
 * Retry rule (spec §6 rules 3-4, §8): only HTTP 200 is success; after a failure the next
 * attempt is due on the next tick of a grid `interval` apart that starts at the round's first
 * attempt, as long as that tick is within `window` of the first attempt; otherwise the delivery
 * is abandoned. A redelivery starts a new round. Pure: time and settings arrive in commands.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { NotFoundError } from '../../platform/errors.js';
import { WebhookKind, WebhookPayload } from './webhook-kinds.js';
import { retrySchedule } from '../../integrations/index.js';

export const webhookDeliveryStream = (endpointId: number, eventId: string) => `webhook-delivery-${endpointId}-${eventId}`;

/** Only HTTP 200 is success (spec §6 rule 3): 201, 204 and redirects are failures too. */
export function isSuccess(statusCode: number | null, error: string | null): boolean {
  return statusCode === 200 && error === null;
}

/** Why a delivery was given up: its retry window ran out, or its endpoint was deleted. */
export const ABANDON_REASONS = ['retry_window_exhausted', 'endpoint_deleted'] as const;
export type AbandonReason = (typeof ABANDON_REASONS)[number];

export type WebhookDeliveryScheduled = DomainEvent<
  'WebhookDeliveryScheduled',
  {
    deliveryId: number;
    endpointId: number;
    merchantId: number;
    kind: WebhookKind;
    /** The source event: its id is the payload's `id` and the `webhook-id` header. */
    eventId: string;
    payload: WebhookPayload;
    scheduledAt: string;
    nextAttemptAt: string;
  }
>;

export type WebhookDeliveryAttempted = DomainEvent<
  'WebhookDeliveryAttempted',
  {
    deliveryId: number;
    /** 1, 2, … over the whole life of the delivery (redeliveries go on counting). */
    attempt: number;
    at: string;
    url: string;
    /** The HTTP status answered, or null when no answer came (timeout, refused, refused address). */
    statusCode: number | null;
    latencyMs: number;
    /** Why the attempt failed; null on success. */
    error: string | null;
    /** When the next attempt is due; null when this attempt ended the round. */
    nextAttemptAt: string | null;
    /**
     * The request went out before a redelivery was requested and its answer came after: it is
     * in the log, but it neither ends nor starts the redelivery's round (still due at `nextAttemptAt`).
     */
    beforeRedelivery?: true;
  }
>;

export type WebhookDelivered = DomainEvent<'WebhookDelivered', { deliveryId: number; attempt: number; deliveredAt: string }>;

export type WebhookDeliveryAbandoned = DomainEvent<'WebhookDeliveryAbandoned', { deliveryId: number; reason: AbandonReason; abandonedAt: string }>;

export type WebhookRedeliveryRequested = DomainEvent<
  'WebhookRedeliveryRequested',
  { deliveryId: number; endpointId: number; merchantId: number; requestedAt: string; by: string; nextAttemptAt: string }
>;

export type WebhookDeliveryEvent =
  WebhookDeliveryScheduled | WebhookDeliveryAttempted | WebhookDelivered | WebhookDeliveryAbandoned | WebhookRedeliveryRequested;

export const WEBHOOK_DELIVERY_EVENT_TYPES = [
  'WebhookDeliveryScheduled',
  'WebhookDeliveryAttempted',
  'WebhookDelivered',
  'WebhookDeliveryAbandoned',
  'WebhookRedeliveryRequested',
] as const satisfies readonly WebhookDeliveryEvent['type'][];

export type WebhookDeliveryCommand =
  | {
      type: 'ScheduleDelivery';
      deliveryId: number;
      endpointId: number;
      merchantId: number;
      payload: WebhookPayload;
      now: Date;
    }
  | {
      type: 'RecordAttempt';
      url: string;
      statusCode: number | null;
      error: string | null;
      latencyMs: number;
      /** When the request was sent. */
      at: Date;
      /** The state's `round` when the request was sent (a redelivery requested since starts another). */
      round: number;
      intervalMs: number;
      windowMs: number;
    }
  | { type: 'AbandonDelivery'; reason: AbandonReason; now: Date }
  | { type: 'RequestRedelivery'; by: string; now: Date };

/** What an admin's redelivery names: it differs from RequestRedelivery as it finds the delivery (and its stream) by id. */
export type RedeliveryRequest = Pick<Extract<WebhookDeliveryCommand, { type: 'ScheduleDelivery' }>, 'merchantId' | 'deliveryId'>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'abandoned'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookDeliveryState {
  deliveryId: number | null;
  endpointId: number | null;
  merchantId: number | null;
  status: DeliveryStatus | null;
  attempts: number;
  /** Redeliveries requested so far: the round an attempt belongs to. */
  round: number;
  /** First attempt of the current round (null until it is made). */
  roundStartedAt: string | null;
  nextAttemptAt: string | null;
  payload: WebhookPayload | null;
}

export const webhookDeliveryDecider: Decider<WebhookDeliveryCommand, WebhookDeliveryState, WebhookDeliveryEvent> = {
  initialState: () => ({
    deliveryId: null,
    endpointId: null,
    merchantId: null,
    status: null,
    attempts: 0,
    round: 0,
    roundStartedAt: null,
    nextAttemptAt: null,
    payload: null,
  }),

  decide(command, state) {
    switch (command.type) {
      case 'ScheduleDelivery': {
        // Scheduling the same (endpoint, event) again is a replay: nothing to do.
        if (state.status !== null) return [];
        const at = command.now.toISOString();
        return [
          {
            type: 'WebhookDeliveryScheduled',
            data: {
              deliveryId: command.deliveryId,
              endpointId: command.endpointId,
              merchantId: command.merchantId,
              kind: command.payload.type,
              eventId: command.payload.id,
              payload: command.payload,
              scheduledAt: at,
              nextAttemptAt: at,
            },
          },
        ];
      }
      case 'RecordAttempt': {
        // An attempt that raced a final outcome changes nothing (one dispatcher makes this rare).
        if (state.status !== 'pending') return [];
        const deliveryId = state.deliveryId!;
        const attempt = state.attempts + 1;
        const at = command.at.toISOString();
        const base = { deliveryId, attempt, at, url: command.url, statusCode: command.statusCode, latencyMs: command.latencyMs };
        const error = isSuccess(command.statusCode, command.error) ? null : (command.error ?? `unexpected status ${command.statusCode}: only 200 is success`);
        // Sent before the redelivery was asked for: the redelivery still goes out, due as requested.
        if (command.round !== state.round) {
          return [{ type: 'WebhookDeliveryAttempted', data: { ...base, error, nextAttemptAt: state.nextAttemptAt, beforeRedelivery: true } }];
        }
        if (error === null) {
          // The attempt is recorded before (and atomically with) the outcome.
          return [
            { type: 'WebhookDeliveryAttempted', data: { ...base, error: null, nextAttemptAt: null } },
            { type: 'WebhookDelivered', data: { deliveryId, attempt, deliveredAt: at } },
          ];
        }
        const roundStart = new Date(state.roundStartedAt ?? at);
        const next = retrySchedule(roundStart, command.at, command.intervalMs, command.windowMs);
        if (next.retry) {
          return [{ type: 'WebhookDeliveryAttempted', data: { ...base, error, nextAttemptAt: next.nextAttemptAt.toISOString() } }];
        }
        return [
          { type: 'WebhookDeliveryAttempted', data: { ...base, error, nextAttemptAt: null } },
          { type: 'WebhookDeliveryAbandoned', data: { deliveryId, reason: 'retry_window_exhausted', abandonedAt: at } },
        ];
      }
      case 'AbandonDelivery':
        if (state.status !== 'pending') return [];
        return [{ type: 'WebhookDeliveryAbandoned', data: { deliveryId: state.deliveryId!, reason: command.reason, abandonedAt: command.now.toISOString() } }];
      case 'RequestRedelivery': {
        if (state.status === null) throw new NotFoundError(['webhook delivery not found']);
        const at = command.now.toISOString();
        return [
          {
            type: 'WebhookRedeliveryRequested',
            data: {
              deliveryId: state.deliveryId!,
              endpointId: state.endpointId!,
              merchantId: state.merchantId!,
              requestedAt: at,
              by: command.by,
              nextAttemptAt: at,
            },
          },
        ];
      }
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WebhookDeliveryScheduled': {
        const d = event.data;
        return {
          ...state,
          deliveryId: d.deliveryId,
          endpointId: d.endpointId,
          merchantId: d.merchantId,
          status: 'pending',
          payload: d.payload,
          nextAttemptAt: d.nextAttemptAt,
        };
      }
      case 'WebhookDeliveryAttempted':
        if (event.data.beforeRedelivery) return { ...state, attempts: event.data.attempt };
        return {
          ...state,
          attempts: event.data.attempt,
          roundStartedAt: state.roundStartedAt ?? event.data.at,
          nextAttemptAt: event.data.nextAttemptAt,
        };
      case 'WebhookDelivered':
        return { ...state, status: 'delivered', nextAttemptAt: null };
      case 'WebhookDeliveryAbandoned':
        return { ...state, status: 'abandoned', nextAttemptAt: null };
      case 'WebhookRedeliveryRequested':
        return { ...state, status: 'pending', round: state.round + 1, roundStartedAt: null, nextAttemptAt: event.data.nextAttemptAt };
      default:
        return unreachable(event);
    }
  },
};
