/**
 * Opening the event index: attaches its file to the log's connection and brings it level with the
 * log (rebuilt, caught up, or refused when the log lost events it had committed).
 */
import Database from 'better-sqlite3';
import { existsSync, renameSync } from 'node:fs';
import { INDEX_SCHEMA_NAME, IndexRow } from './sqlite-indexer.js';
import { PAGE_CACHE_PRAGMA } from './sqlite-pragmas.js';
import { Row } from './sqlite-event-rows.js';
import { EVERY_ENTRY, EventIndexRebuild, EventLogLoss, EventLogLossError, SqliteEventIndex } from './sqlite-event-index.js';

/** Layout of `event_index`; part of the stored version, so a change of layout rebuilds the index too. */
const INDEX_SCHEMA = 1;
const REBUILD_BATCH = 5000;

/** Where an opened index stands: its watermark and its event's id, and what this open (re)indexed. */
export interface OpenedIndex {
  rebuild: EventIndexRebuild | undefined;
  position: number;
  eventId: string;
}

/**
 * Attaches the index's file and brings it level with the log: rebuilt from every event when it
 * is missing, of another version or not this log's, else indexed from its watermark to the head.
 * An index that shows the log lost events refuses the open, or, accepted, is moved aside first.
 */
export function openIndex(db: Database.Database, index: SqliteEventIndex, indexPath: string, acceptEventLoss: boolean, now: () => Date): OpenedIndex {
  markLegacyIndexStale(db);
  const started = performance.now();
  attachIndex(db, indexPath);
  let leveled = levelIndex(db, index, indexPath, acceptEventLoss);
  let lost: EventLogLoss | undefined;
  if ('lost' in leveled) {
    // Kept, not deleted: it is the only record of what the log lost (the positions, and the
    // entries' types and times), for whoever looks into how it was lost.
    db.exec(`DETACH DATABASE ${INDEX_SCHEMA_NAME}`);
    lost = { ...leveled.lost, movedTo: moveAside(indexPath, now()) };
    attachIndex(db, indexPath);
    leveled = levelIndex(db, index, indexPath, acceptEventLoss);
  }
  const outcome = 'lost' in leveled ? undefined : leveled.outcome;
  const reached = db.prepare(`SELECT position, event_id FROM ${INDEX_SCHEMA_NAME}.event_index_meta WHERE name = 'event_index'`).get() as {
    position: number;
    event_id: string | null;
  };
  const at = { position: reached.position, eventId: reached.event_id ?? '' };
  if (lost) return { ...at, rebuild: { reason: 'lost', lost, events: outcome?.events ?? 0, entries: outcome?.entries ?? 0, ms: performance.now() - started } };
  return { ...at, rebuild: outcome && { ...outcome, ms: performance.now() - started } };
}

function attachIndex(db: Database.Database, indexPath: string): void {
  db.prepare(`ATTACH DATABASE ? AS ${INDEX_SCHEMA_NAME}`).run(indexPath);
  db.pragma(`${INDEX_SCHEMA_NAME}.journal_mode = WAL`);
  db.pragma(`${INDEX_SCHEMA_NAME}.synchronous = NORMAL`);
  db.pragma(`${INDEX_SCHEMA_NAME}.${PAGE_CACHE_PRAGMA}`);
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${INDEX_SCHEMA_NAME}.event_index_meta (name TEXT PRIMARY KEY, version TEXT NOT NULL, position INTEGER NOT NULL, event_id TEXT)`,
  );
}

/**
 * Brings the attached index level with the log, in one transaction; or, when the log has lost
 * events the index recorded, changes nothing and throws (or, accepted, says so).
 */
function levelIndex(
  db: Database.Database,
  index: SqliteEventIndex,
  indexPath: string,
  acceptEventLoss: boolean,
): { outcome?: { reason: EventIndexRebuild['reason']; events: number; entries: number } } | { lost: EventLogLoss } {
  const wanted = `${INDEX_SCHEMA}:${index.version}`;
  const idAt = db.prepare('SELECT id FROM events WHERE position = ?').pluck() as Database.Statement<[number], string>;
  const inLog = db.prepare('SELECT 1 FROM events WHERE id = ?').pluck() as Database.Statement<[string], number>;
  return db.transaction(() => {
    // The index's write lock first (a write that changes nothing waits for it, where a read that
    // turns into a write would fail at once), then the log's head: another process's indexer
    // cannot move the watermark between what this reads of the index and of the log.
    db.prepare(`UPDATE ${INDEX_SCHEMA_NAME}.event_index_meta SET name = name WHERE 0`).run();
    const head = (db.prepare('SELECT MAX(position) AS position FROM events').get() as { position: number | null }).position ?? 0;
    const tables = db.prepare(`SELECT name FROM ${INDEX_SCHEMA_NAME}.sqlite_master WHERE type = 'table'`).pluck().all() as string[];
    const meta =
      tables.includes('event_index') && tables.includes('event_index_meta')
        ? (db.prepare(`SELECT version, position, event_id FROM ${INDEX_SCHEMA_NAME}.event_index_meta WHERE name = 'event_index'`).get() as
            { version: string; position: number; event_id: string | null } | undefined)
        : undefined;
    // The index only ever records committed events: one the log no longer holds was lost by the
    // log (whatever the version of the index's rules, which say nothing of the watermark). An
    // index without its watermark's id (of an early release) can only tell when it is past the head.
    if (meta && meta.position > 0 && (meta.event_id === null ? meta.position > head : inLog.get(meta.event_id) === undefined)) {
      const lost: EventLogLoss = { indexPath, indexedThrough: meta.position, indexedEventId: meta.event_id, head };
      if (!acceptEventLoss) throw new EventLogLossError(lost);
      return { lost };
    }
    let reason: EventIndexRebuild['reason'] | undefined;
    if (!meta) reason = 'missing';
    else if (meta.version !== wanted) reason = 'version';
    else if (meta.position > head || (meta.position > 0 && idAt.get(meta.position) !== meta.event_id)) reason = 'mismatch';
    let after = 0;
    if (reason) {
      db.exec(`
        DROP TABLE IF EXISTS ${INDEX_SCHEMA_NAME}.event_index;
        DROP TABLE IF EXISTS ${INDEX_SCHEMA_NAME}.event_index_meta;
        CREATE TABLE ${INDEX_SCHEMA_NAME}.event_index (
          merchant_id INTEGER NOT NULL,
          entity      TEXT    NOT NULL,
          created_at  TEXT    NOT NULL,
          position    INTEGER NOT NULL,
          type        TEXT    NOT NULL,
          PRIMARY KEY (merchant_id, entity, created_at, position)
        ) WITHOUT ROWID;
        CREATE TABLE ${INDEX_SCHEMA_NAME}.event_index_meta (name TEXT PRIMARY KEY, version TEXT NOT NULL, position INTEGER NOT NULL, event_id TEXT);
      `);
      db.prepare(`INSERT INTO ${INDEX_SCHEMA_NAME}.event_index_meta (name, version, position) VALUES ('event_index', ?, 0)`).run(wanted);
    } else {
      after = meta!.position;
      if (after === head) return {};
      reason = 'behind';
    }
    const indexed = indexLog(db, index, after, head);
    if (after === 0) {
      // Built after the rows: one sort instead of a random insert per row. Only over the
      // merchant-wide entries (`*`): a type filter there is a range of its own, while an entity's
      // entries are few enough to filter by type as they are read; a full second index would
      // double the index's write cost and size (docs/audit.md).
      db.exec(
        `CREATE INDEX IF NOT EXISTS ${INDEX_SCHEMA_NAME}.event_index_log_by_type ON event_index (merchant_id, type, created_at, position) WHERE entity = '${EVERY_ENTRY}'`,
      );
    }
    db.prepare(`UPDATE ${INDEX_SCHEMA_NAME}.event_index_meta SET position = ?, event_id = ? WHERE name = 'event_index'`).run(
      head,
      head === 0 ? null : idAt.get(head),
    );
    return { outcome: { reason, ...indexed } };
  })();
}

/**
 * Before the index had a file of its own it was kept in the log's (tables `event_index` and
 * `event_index_meta`). Those tables stay, so that a process of an earlier release still running
 * on the file keeps working, but their version is removed: an earlier release opening the file
 * again rebuilds that index rather than trust it (this one no longer writes it).
 */
function markLegacyIndexStale(db: Database.Database): void {
  const legacy = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_index_meta'").get();
  if (legacy && db.prepare('SELECT 1 FROM event_index_meta LIMIT 1').get()) db.prepare('DELETE FROM event_index_meta').run();
}

/** Indexes the log's events in (after, through] into the attached index (inside the caller's transaction). */
function indexLog(db: Database.Database, index: SqliteEventIndex, after: number, through: number): { events: number; entries: number } {
  const insert = db.prepare(`INSERT OR IGNORE INTO ${INDEX_SCHEMA_NAME}.event_index (merchant_id, entity, created_at, position, type) VALUES (?, ?, ?, ?, ?)`);
  let events = 0;
  let entries = 0;
  for (const rows of logRows(db, index, after, through)) {
    for (const row of rows.rows) entries += insert.run(row[0], row[1], row[2], row[3], row[4]).changes;
    events += rows.events;
  }
  return { events, entries };
}

/** The index rows of the log's events in (after, through], a batch of events at a time. */
export function* logRows(
  db: Database.Database,
  index: SqliteEventIndex,
  after: number,
  through: number,
): Generator<{ rows: IndexRow[]; events: number; last: number; lastId: string }> {
  // Batches by position: better-sqlite3 cannot write while a statement is still being iterated.
  const read = db.prepare(
    'SELECT position, id, stream, revision, type, data, metadata, created_at FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?',
  );
  for (let from = after; from < through;) {
    const events = read.all(from, through, REBUILD_BATCH) as Row[];
    if (events.length === 0) break;
    const rows: IndexRow[] = [];
    for (const event of events) {
      const indexable = { type: event.type, data: JSON.parse(event.data), metadata: JSON.parse(event.metadata), streamName: event.stream };
      for (const entry of index.entriesOf(indexable)) rows.push([entry.merchantId, entry.entity, event.created_at, event.position, event.type]);
    }
    const last = events[events.length - 1];
    from = last.position;
    yield { rows, events: events.length, last: last.position, lastId: last.id };
  }
}

/**
 * Renames a detached SQLite file, with its `-wal` and `-shm` if any (so a WAL not yet checkpointed
 * stays with its file), to `<path>.lost-<time>`; returns the new path.
 */
function moveAside(path: string, at: Date): string {
  const stamp = at.toISOString().replace(/[:.]/g, '-');
  let target = `${path}.lost-${stamp}`;
  for (let n = 2; existsSync(target); n += 1) target = `${path}.lost-${stamp}-${n}`;
  for (const suffix of ['-wal', '-shm']) if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  renameSync(path, target);
  return target;
}
