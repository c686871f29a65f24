/**
 * The audit index as a read model: the AuditIndex port's adapter for the server deployment
 * (EventStoreDB), where the event store cannot keep an index beside its log. Only fed by the
 * runner when the event store does not keep the index itself (audit-storage.ts): on the
 * embedded SQLite store the index lives in a file beside the log (sqlite-audit-index.ts).
 *
 * Every event that belongs to a merchant (merchantOf) gets one entry under `entity: "*"` (the
 * merchant's whole log) and one more per entity it is about (entitiesOf). Entries hold what
 * queries filter and order on, not the event's data: a page reads that from the event store by
 * position when it is presented, so the index stays small however large events are. Entries
 * never change once written. Events of no merchant are not indexed.
 */
import { ProvenanceProjection } from '../platform/projections/projection.js';
import { ALL_EVENT_TYPES } from '../platform/projections/projection-runner.js';
import { CollectionDef } from '../platform/read-store/read-store.js';
import { AuditEntryDoc, entityOfEntryId, entryId, EVERY_EVENT } from './audit-index.js';
import { entitiesOf, merchantOf } from './entities.js';

export const auditIndexCollection: CollectionDef = {
  name: 'audit_index',
  indexes: [
    ['merchant_id', 'entity'],
    ['merchant_id', 'entity', 'type'],
    ['merchant_id', 'entity', 'stream'],
  ],
};

export const auditIndexProjection: ProvenanceProjection<AuditEntryDoc> = {
  name: 'audit_index',
  collection: auditIndexCollection,
  // Entries hold each event's id and revision, and the merchant from its metadata.
  provenance: true,
  handles: [ALL_EVENT_TYPES],
  keys(event) {
    if (merchantOf(event) === undefined) return [];
    return [EVERY_EVENT, ...entitiesOf(event)].map((entity) => entryId(entity, event.position));
  },
  evolve(doc, event, key) {
    if (doc) return doc;
    return {
      _id: key,
      merchant_id: merchantOf(event)!,
      entity: entityOfEntryId(key),
      event_id: event.id,
      type: event.type,
      stream: event.streamName,
      revision: event.revision,
      position: event.position.toString(),
      created_at: event.createdAt.toISOString(),
    };
  },
};

export const auditProjections: ProvenanceProjection[] = [auditIndexProjection];
