/**
 * Embedded event store: one SQLite file (WAL) through better-sqlite3. The global position is
 * the table's rowid; UNIQUE(stream, revision) makes a second writer of the same revision fail
 * inside the database, so optimistic concurrency holds even if two processes share the file.
 *
 * Group commit: appends that arrive in the same turn of the event loop are written in one
 * transaction, so they share one fsync. Each append stays atomic on its own (a savepoint
 * each): a refused append rolls back alone, and every caller is answered only after the
 * transaction holding its events has committed.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Clock, systemClock } from '../clock.js';
import {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  RecordedEvent,
  Subscription,
  WrongExpectedRevisionError,
} from './event-store.js';

interface PendingAppend {
  stream: string;
  events: readonly NewEvent[];
  expected: ExpectedRevision;
  resolve: (rows: Row[]) => void;
  reject: (error: Error) => void;
}

interface Row {
  position: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  created_at: string;
}

const BATCH = 1000;
const POLL_MS = 250;

export interface SqliteEventStoreOptions {
  /** File path, or ':memory:' for tests. */
  path: string;
  clock?: Clock;
  /** PRAGMA synchronous: FULL survives power loss, NORMAL only process crashes. */
  synchronous?: 'FULL' | 'NORMAL';
  /** How often an idle subscription looks for events written by another process. */
  pollMs?: number;
}

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly clock: Clock;
  private readonly pollMs: number;
  private readonly appended = new EventEmitter();
  private closed = false;
  private readonly stmt: {
    head: Database.Statement<[string], { revision: number | null }>;
    insert: Database.Statement<[string, string, number, string, string, string, string]>;
    readStream: Database.Statement<[string], Row>;
    readAfter: Database.Statement<[number, number, number], Row>;
    last: Database.Statement<[], { position: number | null }>;
  };
  private readonly appendTx: (stream: string, events: readonly NewEvent[], expected: ExpectedRevision) => Row[];
  private readonly commitBatch: (batch: PendingAppend[]) => (Row[] | Error)[];
  private pending: PendingAppend[] = [];
  private flushScheduled = false;

  constructor(options: SqliteEventStoreOptions) {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    this.db = new Database(options.path);
    this.clock = options.clock ?? systemClock;
    this.pollMs = options.pollMs ?? POLL_MS;
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position   INTEGER PRIMARY KEY AUTOINCREMENT,
        id         TEXT    NOT NULL UNIQUE,
        stream     TEXT    NOT NULL,
        revision   INTEGER NOT NULL,
        type       TEXT    NOT NULL,
        data       TEXT    NOT NULL,
        metadata   TEXT    NOT NULL,
        created_at TEXT    NOT NULL,
        UNIQUE (stream, revision)
      );
    `);
    this.appended.setMaxListeners(0);
    this.stmt = {
      head: this.db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?'),
      insert: this.db.prepare(
        'INSERT INTO events (id, stream, revision, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
      ),
      readStream: this.db.prepare('SELECT * FROM events WHERE stream = ? ORDER BY revision'),
      readAfter: this.db.prepare('SELECT * FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?'),
      last: this.db.prepare('SELECT MAX(position) AS position FROM events'),
    };
    this.appendTx = this.db.transaction((stream: string, events: readonly NewEvent[], expected: ExpectedRevision) => {
      const current = this.stmt.head.get(stream)?.revision ?? null;
      if (expected !== 'any') {
        const ok = expected === 'no_stream' ? current === null : current === expected;
        if (!ok) throw new WrongExpectedRevisionError(stream, expected, current ?? 'no_stream');
      }
      const createdAt = this.clock.now().toISOString();
      let revision = current ?? -1;
      return events.map((event) => {
        revision += 1;
        return this.stmt.insert.get(
          event.id ?? randomUUID(),
          stream,
          revision,
          event.type,
          JSON.stringify(event.data),
          JSON.stringify(event.metadata ?? {}),
          createdAt,
        ) as Row;
      });
    });
    this.commitBatch = this.db.transaction((batch: PendingAppend[]) => batch.map((item) => this.appendOne(item)));
  }

  async append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    if (this.closed) throw new Error('the event store is closed');
    const rows = await new Promise<Row[]>((resolve, reject) => {
      this.pending.push({ stream: streamName, events, expected, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
    const recorded = rows.map(toRecorded);
    const last = recorded[recorded.length - 1];
    return { revision: last.revision, position: last.position, events: recorded };
  }

  /** Writes every waiting append in one transaction (one fsync), then answers each caller. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let outcomes: (Row[] | Error)[];
    try {
      outcomes = this.commitBatch(batch);
    } catch (error) {
      // The commit itself failed (disk full, closed database): nothing of the batch was written.
      for (const item of batch) item.reject(error as Error);
      return;
    }
    this.appended.emit('append');
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) item.reject(outcome);
      else item.resolve(outcome);
    });
  }

  private appendOne(item: PendingAppend): Row[] | Error {
    try {
      // A nested better-sqlite3 transaction is a savepoint: a refused append rolls back alone.
      return this.appendTx(item.stream, item.events, item.expected);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && item.expected !== 'any') {
        const actual = this.stmt.head.get(item.stream)?.revision ?? 'no_stream';
        return new WrongExpectedRevisionError(item.stream, item.expected, actual);
      }
      return error as Error;
    }
  }

  async readStream(streamName: string): Promise<RecordedEvent[]> {
    return this.stmt.readStream.all(streamName).map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = Number(options.after ?? 0n);
    const until = options.until === undefined ? Number.MAX_SAFE_INTEGER : Number(options.until);
    return this.stmt.readAfter.all(after, until, options.maxCount ?? BATCH).map(toRecorded);
  }

  subscribe(after: bigint = 0n): Subscription {
    let open = true;
    // Set by every append; cleared before each read, so an append that lands while a batch is
    // being read or yielded is never missed (no lost wake-up, no waiting for the poll).
    let signalled = false;
    let wake: (() => void) | undefined;
    const onAppend = () => {
      signalled = true;
      wake?.();
    };
    this.appended.on('append', onAppend);
    const store = this;
    const stop = () => {
      open = false;
      store.appended.off('append', onAppend);
      wake?.();
    };
    async function* iterate(): AsyncGenerator<RecordedEvent> {
      let checkpoint = after;
      try {
        while (open && !store.closed) {
          signalled = false;
          const batch = await store.readAll({ after: checkpoint, maxCount: BATCH });
          for (const event of batch) {
            if (!open) return;
            checkpoint = event.position;
            yield event;
          }
          if (batch.length < BATCH && !signalled && open) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, store.pollMs);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            wake = undefined;
          }
        }
      } finally {
        stop();
      }
    }
    const iterator = iterate();
    return {
      [Symbol.asyncIterator]: () => iterator,
      close: async () => stop(),
    };
  }

  async headPosition(): Promise<bigint> {
    return BigInt(this.stmt.last.get()?.position ?? 0);
  }

  async ping(): Promise<void> {
    this.stmt.last.get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Appends still waiting for their turn are written before the file closes.
    if (this.pending.length > 0) this.flush();
    this.closed = true;
    this.appended.emit('append');
    this.db.close();
  }
}

function toRecorded(row: Row): RecordedEvent {
  return {
    id: row.id,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    streamName: row.stream,
    revision: row.revision,
    position: BigInt(row.position),
    createdAt: new Date(row.created_at),
  };
}
