/**
 * Webhook endpoints read model. Deleted endpoints keep their document (`deleted: true`) so the
 * dispatcher can tell "deleted" from "unknown" and abandon what was still pending for them.
 * `created_position` lets the reactor skip source events older than the endpoint.
 */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { WebhookEndpointEvent } from '../domain/webhook-endpoint.js';
import { WebhookKind } from '../domain/webhook-kinds.js';

export interface WebhookEndpointDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  url: string;
  /** null: every kind. */
  events: WebhookKind[] | null;
  deleted: boolean;
  /** Global position of WebhookEndpointCreated (decimal text). */
  created_position: string;
  /**
   * Earlier subscriptions: `events` as it was before each change, up to the position (decimal
   * text) of the change. The reactor matches an event against the subscription in effect when it
   * was recorded, also when it handles the event late (a rescan after a crash).
   */
  events_until: { position: string; events: WebhookKind[] | null }[];
  last_modified_at: string;
}

/** The endpoint's subscription in effect at `position` (an event recorded after its creation). */
export function eventsAt(doc: WebhookEndpointDoc, position: bigint): WebhookKind[] | null {
  for (const earlier of doc.events_until ?? []) if (position < BigInt(earlier.position)) return earlier.events;
  return doc.events;
}

export const webhookEndpointsCollection: CollectionDef = {
  name: 'webhook_endpoints',
  indexes: [['merchant_id', 'deleted']],
};

export const webhookEndpointsProjection = defineProjection<WebhookEndpointDoc, WebhookEndpointEvent>()({
  name: 'webhook_endpoints',
  collection: webhookEndpointsCollection,
  handles: ['WebhookEndpointCreated', 'WebhookEndpointChanged', 'WebhookEndpointDeleted'],
  keys: (event) => [docKey(event.data.endpointId)],
  evolve(doc, event) {
    switch (event.type) {
      case 'WebhookEndpointCreated': {
        const d = event.data;
        return {
          _id: docKey(d.endpointId),
          id: d.endpointId,
          merchant_id: d.merchantId,
          url: d.url,
          events: d.events,
          deleted: false,
          created_position: event.position.toString(),
          events_until: [],
          created_at: d.createdAt,
          last_modified_at: d.createdAt,
        };
      }
      case 'WebhookEndpointChanged': {
        if (!doc) return null;
        const changes = event.data.changes;
        const events_until =
          changes.events !== undefined ? [...(doc.events_until ?? []), { position: event.position.toString(), events: doc.events }] : doc.events_until;
        return { ...doc, ...changes, events_until, last_modified_at: event.data.changedAt };
      }
      case 'WebhookEndpointDeleted':
        return doc && { ...doc, deleted: true, last_modified_at: event.data.deletedAt };
    }
  },
});
