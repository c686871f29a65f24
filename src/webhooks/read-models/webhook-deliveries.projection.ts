/**
 * Two read models over the delivery streams:
 *
 * - `webhook_deliveries`: the delivery log the admin API lists, one entry per delivery with what
 *   its queries select and order on (merchant, endpoint, kind, status, time) and where the rest
 *   is: the delivery's own stream, and how many of its events the entry reflects. A delivery is
 *   shown as those events folded (`deliveryDetails`): every attempt and the payload come from
 *   the log, not from memory. Held in full, the log cost about 1.25 kB of heap per delivery, two
 *   per purchase with one endpoint: twice what the purchase's own read models hold.
 * - `webhook_due_at`: the dispatcher's queue, one document per *pending* delivery, ordered by
 *   `due_at`, when its next attempt is due: "what is due for endpoint E" is then an ordered index
 *   read, not a scan.
 *   A delivered or abandoned delivery leaves the queue.
 *
 * Both are rebuilt from the log at start-up like every in-memory read model, which is how a
 * restart finds every pending delivery again.
 */
import { docKey } from '../../platform/ids.js';
import { defineProjection, isEventOf, ProjectedOf } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { AbandonReason, DeliveryStatus, WEBHOOK_DELIVERY_EVENT_TYPES, WebhookDeliveryEvent } from '../domain/webhook-delivery.js';
import { WebhookKind, WebhookPayload } from '../domain/webhook-kinds.js';

export interface DeliveryAttemptDoc {
  attempt: number;
  at: string;
  url: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  next_attempt_at: string | null;
  /** Sent before a redelivery was requested, answered after: not part of the redelivery's round. */
  before_redelivery?: true;
}

/** A delivery as the log shows it: its stream folded (`deliveryDetails`). */
export interface WebhookDeliveryDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  endpoint_id: number;
  kind: WebhookKind;
  event_id: string;
  stream: string;
  status: DeliveryStatus;
  payload: WebhookPayload;
  attempts: DeliveryAttemptDoc[];
  next_attempt_at: string | null;
  delivered_at: string | null;
  abandoned_at: string | null;
  abandon_reason: AbandonReason | null;
  last_modified_at: string;
}

/** What the delivery log holds per delivery (see the top of this file). */
export interface WebhookDeliveryEntryDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  endpoint_id: number;
  kind: WebhookKind;
  status: DeliveryStatus;
  /** The delivery's stream. */
  stream: string;
  /**
   * How many of the stream's events the entry reflects: the details shown are those, so that
   * they agree with the status the entry was listed by. (Absent from an entry a release before
   * this one wrote into a durable read store: then the whole stream.)
   */
  events?: number;
}

export const webhookDeliveriesCollection: CollectionDef = {
  name: 'webhook_deliveries',
  indexes: [['merchant_id'], ['merchant_id', 'status'], ['merchant_id', 'kind'], ['merchant_id', 'status', 'kind'], ['merchant_id', 'endpoint_id']],
};

const key = (event: ProjectedOf<WebhookDeliveryEvent>) => docKey(event.data.deliveryId);
const isDeliveryEvent = isEventOf<WebhookDeliveryEvent>(WEBHOOK_DELIVERY_EVENT_TYPES);

/** A delivery's status after one of its events, or undefined where the event leaves it. */
function statusAfter(event: WebhookDeliveryEvent): DeliveryStatus | undefined {
  switch (event.type) {
    case 'WebhookDeliveryScheduled':
    case 'WebhookRedeliveryRequested':
      return 'pending';
    case 'WebhookDelivered':
      return 'delivered';
    case 'WebhookDeliveryAbandoned':
      return 'abandoned';
    case 'WebhookDeliveryAttempted':
      return undefined;
  }
}

export const webhookDeliveriesProjection = defineProjection<WebhookDeliveryEntryDoc, WebhookDeliveryEvent>()({
  name: 'webhook_deliveries',
  collection: webhookDeliveriesCollection,
  handles: WEBHOOK_DELIVERY_EVENT_TYPES,
  keys: (event) => [key(event)],
  evolve(doc, event) {
    if (event.type === 'WebhookDeliveryScheduled') {
      const d = event.data;
      return {
        _id: docKey(d.deliveryId),
        id: d.deliveryId,
        merchant_id: d.merchantId,
        endpoint_id: d.endpointId,
        kind: d.kind,
        status: 'pending',
        stream: event.streamName,
        events: 1,
        created_at: d.scheduledAt,
      };
    }
    if (!doc) return null;
    const status = statusAfter(event) ?? doc.status;
    // An entry that does not count (an earlier release's) cannot start counting mid-stream: it keeps showing all of it.
    return doc.events === undefined ? { ...doc, status } : { ...doc, status, events: doc.events + 1 };
  },
});

/** The log's view of a delivery after one more of its events. */
function evolveDetails(doc: WebhookDeliveryDoc | null, event: WebhookDeliveryEvent, streamName: string): WebhookDeliveryDoc | null {
  if (event.type === 'WebhookDeliveryScheduled') {
    const d = event.data;
    return {
      _id: docKey(d.deliveryId),
      id: d.deliveryId,
      merchant_id: d.merchantId,
      endpoint_id: d.endpointId,
      kind: d.kind,
      event_id: d.eventId,
      stream: streamName,
      status: 'pending',
      payload: d.payload,
      attempts: [],
      next_attempt_at: d.nextAttemptAt,
      delivered_at: null,
      abandoned_at: null,
      abandon_reason: null,
      created_at: d.scheduledAt,
      last_modified_at: d.scheduledAt,
    };
  }
  if (!doc) return null;
  switch (event.type) {
    case 'WebhookDeliveryAttempted': {
      const d = event.data;
      const attempt: DeliveryAttemptDoc = {
        attempt: d.attempt,
        at: d.at,
        url: d.url,
        status_code: d.statusCode,
        latency_ms: d.latencyMs,
        error: d.error,
        next_attempt_at: d.nextAttemptAt,
        ...(d.beforeRedelivery ? { before_redelivery: true as const } : {}),
      };
      return { ...doc, attempts: [...doc.attempts, attempt], next_attempt_at: d.nextAttemptAt, last_modified_at: d.at };
    }
    case 'WebhookDelivered':
      return { ...doc, status: 'delivered', next_attempt_at: null, delivered_at: event.data.deliveredAt, last_modified_at: event.data.deliveredAt };
    case 'WebhookDeliveryAbandoned':
      return {
        ...doc,
        status: 'abandoned',
        next_attempt_at: null,
        abandoned_at: event.data.abandonedAt,
        abandon_reason: event.data.reason,
        last_modified_at: event.data.abandonedAt,
      };
    case 'WebhookRedeliveryRequested':
      return {
        ...doc,
        status: 'pending',
        next_attempt_at: event.data.nextAttemptAt,
        delivered_at: null,
        abandoned_at: null,
        abandon_reason: null,
        last_modified_at: event.data.requestedAt,
      };
  }
}

/**
 * A delivery as the log shows it: the first `entry.events` events of its stream (`events`, as
 * read from the event store) folded; null when they hold no scheduling.
 */
export function deliveryDetails(
  entry: WebhookDeliveryEntryDoc,
  events: readonly { type: string; data: unknown; streamName: string }[],
): WebhookDeliveryDoc | null {
  let doc: WebhookDeliveryDoc | null = null;
  const count = Math.min(entry.events ?? events.length, events.length);
  for (let i = 0; i < count; i += 1) {
    const event = events[i];
    if (isDeliveryEvent(event)) doc = evolveDetails(doc, event, event.streamName);
  }
  return doc;
}

interface DueDelivery {
  delivery_id: number;
  endpoint_id: number;
  merchant_id: number;
  stream: string;
}

export interface DueDeliveryDoc extends ReadDoc, DueDelivery {
  /** When the next attempt is due: the collection's order. */
  due_at: string;
  /** When the delivery entered the queue (its first due time). */
  created_at: string;
}

export const dueDeliveriesCollection: CollectionDef = { name: 'webhook_due_at', indexes: [['endpoint_id']], orderBy: 'due_at' };

export const dueDeliveriesProjection = defineProjection<DueDeliveryDoc, WebhookDeliveryEvent>()({
  name: 'webhook_due_at',
  collection: dueDeliveriesCollection,
  handles: WEBHOOK_DELIVERY_EVENT_TYPES,
  keys: (event) => [key(event)],
  evolve(doc, event) {
    const due = (at: string, d: DueDelivery): DueDeliveryDoc => ({
      _id: key(event),
      due_at: at,
      created_at: doc?.created_at ?? at,
      delivery_id: d.delivery_id,
      endpoint_id: d.endpoint_id,
      merchant_id: d.merchant_id,
      stream: d.stream,
    });
    switch (event.type) {
      case 'WebhookDeliveryScheduled': {
        const d = event.data;
        return due(d.nextAttemptAt, { delivery_id: d.deliveryId, endpoint_id: d.endpointId, merchant_id: d.merchantId, stream: event.streamName });
      }
      case 'WebhookDeliveryAttempted':
        return doc && event.data.nextAttemptAt !== null ? due(event.data.nextAttemptAt, doc) : doc;
      case 'WebhookDelivered':
      case 'WebhookDeliveryAbandoned':
        return null;
      case 'WebhookRedeliveryRequested': {
        const d = event.data;
        return due(d.nextAttemptAt, { delivery_id: d.deliveryId, endpoint_id: d.endpointId, merchant_id: d.merchantId, stream: event.streamName });
      }
    }
  },
});
