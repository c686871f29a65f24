/**
 * Chooses the adapters: EventStoreDB when EVENTSTORE_URL is set, else SQLite under DATA_DIR;
 * MongoDB when MONGO_URL is set, else in-memory read models rebuilt at start-up; the storage
 * leases (server mode) in each of those servers.
 */
import { createHash } from 'node:crypto';
import { KeyStore } from './personal-data/key-store.js';
import { MongoKeyStore } from './personal-data/mongo-key-store.js';
import { SqliteKeyStore } from './personal-data/sqlite-key-store.js';
import { join } from 'node:path';
import { Clock } from './clock.js';
import { Config } from './config.js';
import { EventStore } from './event-store/event-store.js';
import { EventStoreDbEventStore } from './event-store/eventstoredb-event-store.js';
import { SqliteEventIndex, SqliteEventStore } from './event-store/sqlite-event-store.js';
import { EventStoreDbLeaseStore, LEASE_STREAM } from './instance/eventstoredb-lease-store.js';
import { LeaseStore } from './instance/lease-store.js';
import { MongoLeaseStore } from './instance/mongo-lease-store.js';
import { MemoryReadStore } from './read-store/memory-read-store.js';
import { MongoReadStore } from './read-store/mongo-read-store.js';
import { ReadStore } from './read-store/read-store.js';

export interface StorageNames {
  /** SQLite file name under DATA_DIR. */
  sqliteFile: string;
  /** Stream-name prefix in EventStoreDB. */
  streamNamespace: string;
  /** MongoDB database name. */
  mongoDatabase: string;
  /** Storage of a sandbox generation: its MongoDB database is dropped and its EventStoreDB streams deleted when it closes. */
  ephemeral?: boolean;
  /**
   * Beginnings of stream names, after `streamNamespace`, that belong to other stores nested in
   * this namespace (the sandbox's generations): their events are never this store's.
   */
  foreignStreams?: readonly string[];
}

/** Stream names of the sandbox's generations, after the live namespace (src/sandbox/sandbox-host.ts). */
export const SANDBOX_STREAMS = 'sandbox-';

/** The live service's storage: EVENTSTORE_NAMESPACE and MONGO_DATABASE, the sandbox's streams and the storage lease's excluded. */
export function liveStorage(config: Config): StorageNames {
  return {
    sqliteFile: 'events.sqlite',
    streamNamespace: config.eventStoreNamespace,
    mongoDatabase: config.mongoDatabase,
    foreignStreams: [SANDBOX_STREAMS, LEASE_STREAM],
  };
}

export interface EventStoreOptions {
  /** An index the SQLite store keeps beside its log (ignored by EventStoreDB). */
  sqliteIndex?: SqliteEventIndex;
}

export async function createEventStore(
  config: Config,
  clock: Clock,
  names: StorageNames = liveStorage(config),
  options: EventStoreOptions = {},
): Promise<EventStore> {
  if (config.eventStoreUrl) {
    // An ephemeral namespace (a sandbox generation) deletes its streams when it closes.
    return EventStoreDbEventStore.connect(config.eventStoreUrl, {
      namespace: names.streamNamespace,
      foreignStreams: names.foreignStreams,
      ephemeral: names.ephemeral === true,
    });
  }
  return new SqliteEventStore({ path: join(config.dataDir, names.sqliteFile), clock, index: options.sqliteIndex, acceptEventLoss: config.acceptEventLoss });
}

/**
 * The key store of the subjects' keys (platform/personal-data): a collection in the MongoDB database
 * when MONGO_URL is set, else a SQLite file beside the log (`events.sqlite-keys`), also when the
 * log is in EventStoreDB. Never inside the log: a copy of the log alone holds no key.
 */
export async function createKeyStore(config: Config, names: StorageNames = liveStorage(config)): Promise<KeyStore> {
  const secret = names.ephemeral ? EPHEMERAL_SECRET : undefined;
  if (config.mongoUrl) return MongoKeyStore.connect(config.mongoUrl, names.mongoDatabase, { dropOnClose: names.ephemeral === true, secret });
  return new SqliteKeyStore(join(config.dataDir, `${names.sqliteFile}-keys`), { secret });
}

/**
 * The keyed hashes of a sandbox generation (ephemeral storage) are the same in every process, as
 * its ids and codes are, so that every generation answers alike: its data is sample data written
 * with published keys, and its hashes hide nothing the sandbox does not show.
 */
const EPHEMERAL_SECRET = createHash('sha256').update('referral-service: sandbox generations').digest();

export async function createReadStore(config: Config, names: StorageNames = liveStorage(config)): Promise<ReadStore> {
  if (config.mongoUrl) return MongoReadStore.connect(config.mongoUrl, names.mongoDatabase, { dropOnClose: names.ephemeral === true });
  return new MemoryReadStore();
}

/**
 * Server mode's lease stores and what each guards (for messages): one in every server the
 * service writes to, so that two instances sharing either one are told apart; none in embedded
 * mode, which locks DATA_DIR instead.
 */
export async function createLeaseStores(config: Config): Promise<{ store: LeaseStore; what: string }[]> {
  const stores: { store: LeaseStore; what: string }[] = [];
  if (config.eventStoreUrl) {
    const namespace = config.eventStoreNamespace ? `stream namespace ${config.eventStoreNamespace}` : 'the default stream namespace';
    stores.push({ store: EventStoreDbLeaseStore.connect(config.eventStoreUrl, config.eventStoreNamespace), what: `EventStoreDB ${namespace}` });
  }
  if (config.mongoUrl) {
    try {
      stores.push({ store: await MongoLeaseStore.connect(config.mongoUrl, config.mongoDatabase), what: `MongoDB database ${config.mongoDatabase}` });
    } catch (error) {
      await Promise.all(stores.map(({ store }) => store.close()));
      throw error;
    }
  }
  return stores;
}

export function describeStorage(config: Config): string {
  const namespace = config.eventStoreNamespace ? `, stream namespace ${config.eventStoreNamespace}` : '';
  const events = config.eventStoreUrl ? `EventStoreDB${namespace}` : `SQLite in ${config.dataDir}`;
  const reads = config.mongoUrl ? `MongoDB database ${config.mongoDatabase}` : 'in-memory read models (rebuilt at start-up)';
  return `${events}; ${reads}`;
}
