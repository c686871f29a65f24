/**
 * The AuditIndex port on the embedded store: the audit index is the SQLite store's generic event
 * index (platform/event-store/sqlite-event-store.ts), in a file beside the log, written after each
 * commit by a thread of its own (a read waits until it reaches the log's head) and read back with
 * the events joined in. Nothing of it is on the heap and nothing is replayed at start-up.
 *
 * `auditEventIndex` says what an event is indexed under, with the same rules as the read-model
 * adapter: nothing for events of no merchant, else one entry under `*` (the merchant's log) and
 * one per entity the event is about. Its version follows the entity rules (entities.ts), so a
 * change there re-indexes every stored event at the next start.
 */
import { RecordedEvent } from '../platform/event-store/event-store.js';
import { EVERY_ENTRY, EventIndexEntry, IndexedEventStore, SqliteEventIndex } from '../platform/event-store/sqlite-event-store.js';
import { V2Paging } from '../platform/http/paging.js';
import { AuditEntry, AuditFilter, AuditIndex, entryId, EVERY_EVENT, positionAfterEntryId } from './audit-index.js';
import { ENTITY_RULES_VERSION, entitiesOf, merchantOf } from './entities.js';

export const auditEventIndex: SqliteEventIndex = {
  version: `audit-${ENTITY_RULES_VERSION}`,
  entriesOf(event): EventIndexEntry[] {
    const merchantId = merchantOf(event);
    if (merchantId === undefined) return [];
    // EVERY_EVENT is the store's EVERY_ENTRY ('*'), whose entries have a type index of their own.
    const entries: EventIndexEntry[] = [{ merchantId, entity: EVERY_ENTRY }];
    for (const entity of entitiesOf(event)) entries.push({ merchantId, entity });
    return entries;
  },
};

export class SqliteAuditIndex implements AuditIndex {
  constructor(private readonly store: IndexedEventStore) {
    if (store.indexVersion !== auditEventIndex.version) throw new Error('the SQLite event store was not opened with the audit index');
  }

  async page(filter: AuditFilter, paging: V2Paging): Promise<AuditEntry[]> {
    const entity = filter.entity ?? EVERY_EVENT;
    const events = await this.store.readIndex({
      merchantId: filter.merchantId,
      entity,
      types: filter.types,
      stream: filter.stream,
      after: paging.after && { createdAt: paging.after.at, position: positionAfterEntryId(entity, paging.after._id) },
      createdFrom: paging.createdFrom,
      createdBefore: paging.createdBefore,
      limit: paging.limit + 1,
    });
    return events.map((event) => toEntry(filter.merchantId, entity, event));
  }

  exists(merchantId: number, entity: string): Promise<boolean> {
    return this.store.inIndex(merchantId, entity);
  }
}

function toEntry(merchantId: number, entity: string, event: RecordedEvent): AuditEntry {
  return {
    _id: entryId(entity, event.position),
    created_at: event.createdAt.toISOString(),
    merchant_id: merchantId,
    entity,
    event_id: event.id,
    type: event.type,
    stream: event.streamName,
    revision: event.revision,
    position: event.position.toString(),
    data: event.data,
  };
}
