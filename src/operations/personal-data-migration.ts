/**
 * The one-time rewrite of an embedded log (SQLite) written before its personal values were
 * sealed (platform/personal-data): every event's declared personal values are sealed as an append
 * seals them now, and the streams once named after an address (base64url of it) take the names
 * they have now (its keyed hash), in one transaction: a crash leaves the old log as it was. The
 * file is then vacuumed and its WAL truncated, so that no free page keeps a plaintext value, and
 * the event index beside it is deleted (the store builds it again at open). A row in the log's
 * `log_meta` table says it is done; a log without events just gets the row.
 *
 * EventStoreDB logs are immutable and are not rewritten (docs/privacy.md).
 */
import Database from 'better-sqlite3';
import { Logger } from '@nestjs/common';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { optOutStream } from '../email-opt-outs/index.js';
import { indexPathOf } from '../platform/event-store/sqlite-event-store.js';
import { EventStore } from '../platform/event-store/event-store.js';
import { KeyStore } from '../platform/personal-data/key-store.js';
import { PersonalDataEventStore } from '../platform/personal-data/personal-data-event-store.js';
import { PersonalDataMap } from '../platform/personal-data/personal-fields.js';
import { personalLinkClaimStream } from '../referral-links/index.js';
import { advocateLedgerStream } from '../sales/index.js';

/** `log_meta.personal_data` of a log whose personal values are sealed. */
export const PERSONAL_DATA_SEALED = 'sealed-v1';
/** `log_meta.compaction`, while the file may still hold plaintext in free pages or beside it (a crash after the rewrite's commit). */
const COMPACTION_PENDING = 'pending';
const BATCH = 1000;

export interface PersonalDataMigration {
  /** Events in the log. */
  events: number;
  /** Events whose data was rewritten (personal values sealed). */
  sealed: number;
  /** Streams renamed (named after an address before). */
  streams: number;
  /** From opening the stores to the file compacted. */
  ms: number;
}

/** What a log needs: nothing, the rewrite, or only the compaction a crash interrupted. */
type LogState = 'done' | 'rewrite' | 'compact';

/** The log at `path` as the service opens it, and its key store: what the rewrite seals with. */
export interface MigrationStores {
  log: EventStore;
  keys: KeyStore;
}

/**
 * Brings the log at `path` to sealed, once, with the declarations `personal`. `open` opens the log
 * as the service does (so that its checks run first, the index's of lost events) and the key
 * store; the log is closed before its file is rewritten. Undefined when there was nothing to rewrite.
 */
export async function migratePersonalData(
  path: string,
  personal: PersonalDataMap,
  open: () => Promise<MigrationStores>,
  log: (line: string) => void = (line) => new Logger('PersonalData').log(line),
): Promise<PersonalDataMigration | undefined> {
  const state = stateOf(path);
  if (state === 'done') return undefined;
  if (state === 'compact') {
    compact(path);
    return undefined;
  }
  const started = performance.now();
  const stores = await open();
  let rewritten: Omit<PersonalDataMigration, 'ms'> | undefined;
  try {
    await stores.log.close();
    rewritten = await rewrite(path, await PersonalDataEventStore.open(stores.log, stores.keys, personal), personal);
  } finally {
    await stores.keys.close();
  }
  if (!rewritten) return undefined;
  compact(path);
  const report = { ...rewritten, ms: performance.now() - started };
  log(
    `personal data of the event log sealed (a log written before they were): ${report.sealed} of ${report.events} events rewritten, ${report.streams} streams renamed, in ${(report.ms / 1000).toFixed(1)} s`,
  );
  return report;
}

/** Opens the log's file (creating it), and marks it done at once when it holds no event. */
function stateOf(path: string): LogState {
  mkdirSync(dirname(path), { recursive: true });
  const db = openFile(path);
  try {
    // A log marked done is only read (another process may be writing to it).
    const marked = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'log_meta'").get() !== undefined && stateIfMarked(db);
    if (marked) return marked;
    return db
      .transaction((): LogState => {
        ensureMeta(db);
        const state = stateIfMarked(db);
        if (state) return state;
        const hasEvents = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() !== undefined;
        if (hasEvents && db.prepare('SELECT 1 FROM events LIMIT 1').get() !== undefined) return 'rewrite';
        setMeta(db, 'personal_data', PERSONAL_DATA_SEALED);
        return 'done';
      })
      .immediate();
  } finally {
    db.close();
  }
}

function stateIfMarked(db: Database.Database): LogState | undefined {
  if (metaOf(db, 'personal_data') !== PERSONAL_DATA_SEALED) return undefined;
  return metaOf(db, 'compaction') === COMPACTION_PENDING ? 'compact' : 'done';
}

/** Seals every event's personal values and renames the streams named after an address, in one transaction. */
async function rewrite(path: string, layer: PersonalDataEventStore, personal: PersonalDataMap): Promise<Omit<PersonalDataMigration, 'ms'> | undefined> {
  const db = openFile(path);
  try {
    // Freed pages are overwritten with zeros, not left holding the values replaced.
    db.pragma('secure_delete = ON');
    db.exec('BEGIN IMMEDIATE');
    try {
      ensureMeta(db);
      // Another process did it between the check and this transaction.
      if (metaOf(db, 'personal_data') === PERSONAL_DATA_SEALED) {
        db.exec('ROLLBACK');
        return undefined;
      }
      const events = (db.prepare('SELECT COUNT(*) FROM events').pluck().get() as number) ?? 0;
      const sealed = await sealEvents(db, layer, personal);
      const streams = renameStreams(db, layer);
      setMeta(db, 'personal_data', PERSONAL_DATA_SEALED);
      setMeta(db, 'compaction', COMPACTION_PENDING);
      db.exec('COMMIT');
      return { events, sealed, streams };
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    db.close();
  }
}

async function sealEvents(db: Database.Database, layer: PersonalDataEventStore, personal: PersonalDataMap): Promise<number> {
  // Only events of a type that declares personal values can change.
  const read = db.prepare('SELECT position, type, data FROM events WHERE position > ? AND type IN (SELECT value FROM json_each(?)) ORDER BY position LIMIT ?');
  const update = db.prepare('UPDATE events SET data = ? WHERE position = ?');
  const types = JSON.stringify(Object.keys(personal));
  let after = 0;
  let sealed = 0;
  for (;;) {
    const rows = read.all(after, types, BATCH) as { position: number; type: string; data: string }[];
    if (rows.length === 0) return sealed;
    const events = rows.map((row) => ({ type: row.type, data: JSON.parse(row.data) as unknown }));
    const data = await layer.sealData(events);
    rows.forEach((row, i) => {
      if (data[i] === events[i].data) return;
      update.run(JSON.stringify(data[i]), row.position);
      sealed += 1;
    });
    after = rows[rows.length - 1].position;
  }
}

/** The name a stream has now, when it was named after an address before (base64url of it), else undefined. */
export function renamedStream(stream: string, layer: Pick<PersonalDataEventStore, 'emailKey'>): string | undefined {
  let match = /^email-opt-out-([0-9]+)-([A-Za-z0-9_-]*)$/.exec(stream);
  if (match) {
    const email = addressOf(match[2]);
    const merchantId = Number(match[1]);
    return email === undefined ? undefined : optOutStream(merchantId, layer.emailKey(merchantId, email));
  }
  match = /^personal-link-([0-9]+)-([0-9]+)-e([A-Za-z0-9_-]*)$/.exec(stream);
  if (match) {
    const email = addressOf(match[3]);
    const merchantId = Number(match[1]);
    return email === undefined ? undefined : personalLinkClaimStream(merchantId, Number(match[2]), { emailKey: layer.emailKey(merchantId, email) });
  }
  // `e` alone: an advocate known by neither; the name holds nothing and stays.
  match = /^advocate-rewards-([0-9]+)-([0-9]+)-e([A-Za-z0-9_-]+)$/.exec(stream);
  if (match) {
    const email = addressOf(match[3]);
    const merchantId = Number(match[1]);
    return email === undefined
      ? undefined
      : advocateLedgerStream(merchantId, Number(match[2]), { customerId: null, emailKey: layer.emailKey(merchantId, email) });
  }
  return undefined;
}

/** The address a name's base64url encoded, when it is exactly that (a name of the new form, `k…`, is not). */
function addressOf(encoded: string): string | undefined {
  if (encoded.startsWith('k')) return undefined;
  const email = Buffer.from(encoded, 'base64url').toString('utf8');
  return Buffer.from(email, 'utf8').toString('base64url') === encoded ? email : undefined;
}

/**
 * Renames each stream named after an address. Names that differed only by what the key ignores
 * (spaces around the address) become one stream: its events are numbered again in log order.
 */
function renameStreams(db: Database.Database, layer: PersonalDataEventStore): number {
  const names = db
    .prepare("SELECT DISTINCT stream FROM events WHERE stream LIKE 'email-opt-out-%' OR stream LIKE 'personal-link-%' OR stream LIKE 'advocate-rewards-%'")
    .pluck()
    .all() as string[];
  const renames = new Map<string, string[]>();
  for (const name of names) {
    const renamed = renamedStream(name, layer);
    if (renamed !== undefined) renames.set(renamed, [...(renames.get(renamed) ?? []), name]);
  }
  const rename = db.prepare('UPDATE events SET stream = ? WHERE stream = ?');
  const exists = db.prepare('SELECT 1 FROM events WHERE stream = ? LIMIT 1');
  const positions = db.prepare('SELECT position FROM events WHERE stream IN (SELECT value FROM json_each(?)) ORDER BY position').pluck();
  const move = db.prepare('UPDATE events SET stream = ?, revision = ? WHERE position = ?');
  let renamedCount = 0;
  for (const [renamed, olds] of renames) {
    renamedCount += olds.length;
    if (olds.length === 1 && exists.get(renamed) === undefined) {
      rename.run(renamed, olds[0]);
      continue;
    }
    const merged = positions.all(JSON.stringify([...olds, renamed])) as number[];
    // Through negative revisions first: no two rows hold one (stream, revision) on the way.
    merged.forEach((position, i) => move.run(renamed, -1 - i, position));
    merged.forEach((position, i) => move.run(renamed, i, position));
  }
  return renamedCount;
}

/** Rewrites the file without free pages, truncates its WAL, and deletes the event index (rebuilt at the next open). */
function compact(path: string): void {
  const db = openFile(path);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.exec('VACUUM');
    const index = indexPathOf(path);
    for (const file of [index, `${index}-wal`, `${index}-shm`]) rmSync(file, { force: true });
    db.prepare("DELETE FROM log_meta WHERE name = 'compaction'").run();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

function openFile(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

function ensureMeta(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS log_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)');
}

function metaOf(db: Database.Database, name: string): string | undefined {
  return db.prepare('SELECT value FROM log_meta WHERE name = ?').pluck().get(name) as string | undefined;
}

function setMeta(db: Database.Database, name: string, value: string): void {
  db.prepare('INSERT INTO log_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(name, value);
}
