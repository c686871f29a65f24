/**
 * The service's event store: `createEventStore` (platform/storage.ts) with the audit index kept
 * in the SQLite file beside the log (src/audit/sqlite-audit-index.ts). Everything that opens the
 * service's event store goes through here (the live service, sandbox generations, the rebuild
 * CLI), so every writer keeps the index; the platform itself knows nothing of the audit.
 *
 * The index also tells when the log lost events it had committed (a damaged `-wal`, an older copy
 * of the log put back): the start is then refused, unless ACCEPT_EVENT_LOSS=true
 * (docs/reliability.md).
 *
 * An embedded log written before personal values were sealed is rewritten once, before anything
 * reads it (personal-data-migration.ts).
 */
import { auditEventIndex } from '../audit/index.js';
import { Clock } from '../platform/clock.js';
import { Config } from '../platform/config.js';
import { EventStore } from '../platform/event-store/event-store.js';
import { EventLogLossError } from '../platform/event-store/sqlite-event-store.js';
import { createEventStore, createKeyStore, liveStorage, StorageNames } from '../platform/storage.js';
import { PersonalDataEventStore } from '../platform/personal-data/personal-data-event-store.js';
import { PersonalDataMap } from '../platform/personal-data/personal-fields.js';
import { join } from 'node:path';
import { migratePersonalData, MigrationStores } from './personal-data-migration.js';
import { servicePersonalData } from './personal-data.js';

/** `personal`: the declarations of personal values (tests hand in their own). */
export async function createServiceEventStore(
  config: Config,
  clock: Clock,
  names: StorageNames = liveStorage(config),
  personal: PersonalDataMap = servicePersonalData,
): Promise<PersonalDataEventStore> {
  if (!config.eventStoreUrl) await migratePersonalData(join(config.dataDir, names.sqliteFile), personal, () => openStores(config, clock, names));
  const log = await openLog(config, clock, names);
  try {
    return await PersonalDataEventStore.open(log, await createKeyStore(config, names), personal);
  } catch (error) {
    await log.close();
    throw error;
  }
}

async function openStores(config: Config, clock: Clock, names: StorageNames): Promise<MigrationStores> {
  const log = await openLog(config, clock, names);
  try {
    return { log, keys: await createKeyStore(config, names) };
  } catch (error) {
    await log.close();
    throw error;
  }
}

async function openLog(config: Config, clock: Clock, names: StorageNames): Promise<EventStore> {
  try {
    return await createEventStore(config, clock, names, { sqliteIndex: auditEventIndex });
  } catch (error) {
    if (!(error instanceof EventLogLossError)) throw error;
    // Starting would answer as if those writes had never been made (their merchants were told
    // 201): an operator decides, knowing which positions are gone.
    throw new Error(
      `refusing to start: ${error.message}. Put back a copy of the log that holds them (events.sqlite with its events.sqlite-wal), ` +
        'or set ACCEPT_EVENT_LOSS=true to start without them (the old index is then kept aside as events.sqlite-index.lost-<time> and a new one built from the log)',
      { cause: error },
    );
  }
}
