/**
 * Where the audit index lives, decided in this one place for the whole service:
 *
 * - the embedded SQLite event store opened with `auditEventIndex` (what createServiceEventStore
 *   does for the live service, sandbox generations and the rebuild CLI) keeps it in its own file,
 *   written after each commit with a watermark that reads wait for: no projection, nothing on the
 *   heap, nothing to replay;
 * - any other event store (EventStoreDB, or a SQLite store opened without the index, e.g. a test
 *   wrapping one) gets the `audit_index` projection into the read store.
 *
 * The projection list (`auditProjectionsFor`, used by service-projections.ts) and the adapter
 * (`createAuditIndex`, the AUDIT_INDEX provider) both follow `keepsAuditIndex`, so the two can
 * never disagree.
 */
import { Logger } from '@nestjs/common';
import { EventStore } from '../platform/event-store/event-store.js';
import { describeEventLogLoss, IndexedEventStore, keepsIndex } from '../platform/event-store/sqlite-event-store.js';
import { AnyProjection } from '../platform/projections/projection.js';
import { ReadStore } from '../platform/read-store/read-store.js';
import { AuditIndex } from './audit-index.js';
import { auditProjections } from './audit-index.projection.js';
import { ReadModelAuditIndex } from './read-model-audit-index.js';
import { auditEventIndex, SqliteAuditIndex } from './sqlite-audit-index.js';

/** True when the event store keeps the audit index itself (embedded SQLite opened with it). */
export function keepsAuditIndex(eventStore: EventStore): eventStore is EventStore & IndexedEventStore {
  return keepsIndex(eventStore, auditEventIndex.version);
}

/** The audit projection, unless the event store keeps the index itself. */
export function auditProjectionsFor(eventStore: EventStore): AnyProjection[] {
  return keepsAuditIndex(eventStore) ? [] : auditProjections;
}

export function createAuditIndex(eventStore: EventStore, readStore: ReadStore): AuditIndex {
  if (!keepsAuditIndex(eventStore)) return new ReadModelAuditIndex(readStore, eventStore);
  const rebuilt = eventStore.indexRebuild;
  if (rebuilt?.lost) {
    // Started anyway (ACCEPT_EVENT_LOSS): an error, so that alerting on errors sees it.
    new Logger('Audit').error(
      `${describeEventLogLoss(rebuilt.lost)}; started without them (ACCEPT_EVENT_LOSS=true): the old audit index is kept as ${rebuilt.lost.movedTo}, a new one was built from the log (${rebuilt.events} events, ${rebuilt.entries} entries in ${(rebuilt.ms / 1000).toFixed(1)} s)`,
    );
  } else if (rebuilt && rebuilt.events > 0) {
    new Logger('Audit').log(
      `${rebuilt.reason === 'behind' ? 'audit index caught up with the event log' : `audit index rebuilt from the event log (${rebuilt.reason})`}: ${rebuilt.events} events, ${rebuilt.entries} entries in ${(rebuilt.ms / 1000).toFixed(1)} s`,
    );
  }
  return new SqliteAuditIndex(eventStore);
}
