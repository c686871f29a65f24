/**
 * The service's event store: `createEventStore` (platform/storage.ts) with the audit index kept
 * in the SQLite file beside the log (src/audit/sqlite-audit-index.ts). Everything that opens the
 * service's event store goes through here (the live service, sandbox generations, the rebuild
 * CLI), so every writer keeps the index; the platform itself knows nothing of the audit.
 */
import { auditEventIndex } from '../audit/sqlite-audit-index.js';
import { Clock } from '../platform/clock.js';
import { Config } from '../platform/config.js';
import { EventStore } from '../platform/event-store/event-store.js';
import { createEventStore, liveStorage, StorageNames } from '../platform/storage.js';

export function createServiceEventStore(config: Config, clock: Clock, names: StorageNames = liveStorage(config)): Promise<EventStore> {
  return createEventStore(config, clock, names, { sqliteIndex: auditEventIndex });
}
