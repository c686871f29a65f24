/**
 * The audit index: a read model of the event log per merchant, so that an audit page is one
 * indexed range query however long the log grows (GET /v2/audit/events, /v2/audit/entities).
 *
 * Every event that belongs to a merchant (merchantOf) gets one entry under `entity: "*"` (the
 * merchant's whole log) and one more per entity it is about (entitiesOf). Entries hold what
 * queries filter and order on, not the event's data: a page reads that from the event store by
 * position when it is presented, so the index stays small however large events are. Entries
 * never change once written. Events of no merchant are not indexed.
 */
import { RecordedEvent } from '../platform/event-store/event-store.js';
import { Projection } from '../platform/projections/projection.js';
import { ALL_EVENT_TYPES } from '../platform/projections/projection-runner.js';
import { CollectionDef, positionKey, ReadDoc } from '../platform/read-store/read-store.js';
import { entitiesOf, merchantOf } from './entities.js';

/** The `entity` of the entries that list every event of a merchant. */
export const EVERY_EVENT = '*';

export interface AuditEntryDoc extends ReadDoc {
  merchant_id: number;
  /** `*`, or the entity (`customer:123`) this entry indexes the event under. */
  entity: string;
  event_id: string;
  type: string;
  stream: string;
  revision: number;
  /** Global position, as a decimal string (positions can exceed 2^53). */
  position: string;
}

export const auditIndexCollection: CollectionDef = {
  name: 'audit_index',
  indexes: [
    ['merchant_id', 'entity'],
    ['merchant_id', 'entity', 'type'],
    ['merchant_id', 'entity', 'stream'],
  ],
};

/** `_id`s sort like positions within one entity, so entries of the same millisecond keep log order. */
function keyOf(entity: string, event: RecordedEvent): string {
  return `${entity === EVERY_EVENT ? '' : `${entity}@`}${positionKey(event.position)}`;
}

function entityOfKey(key: string): string {
  const at = key.lastIndexOf('@');
  return at < 0 ? EVERY_EVENT : key.slice(0, at);
}

export const auditIndexProjection: Projection<AuditEntryDoc> = {
  name: 'audit_index',
  collection: auditIndexCollection,
  handles: [ALL_EVENT_TYPES],
  keys(event) {
    if (merchantOf(event) === undefined) return [];
    return [EVERY_EVENT, ...entitiesOf(event)].map((entity) => keyOf(entity, event));
  },
  evolve(doc, event, key) {
    if (doc) return doc;
    return {
      _id: key,
      merchant_id: merchantOf(event)!,
      entity: entityOfKey(key),
      event_id: event.id,
      type: event.type,
      stream: event.streamName,
      revision: event.revision,
      position: event.position.toString(),
      created_at: event.createdAt.toISOString(),
    };
  },
};

export const auditProjections: Projection[] = [auditIndexProjection as Projection];
