/**
 * Embedded event store: one SQLite file (WAL) through better-sqlite3; UNIQUE(stream, revision) keeps
 * optimistic concurrency inside the database. Appends are group-committed on a writer thread; this
 * process's appends stay in a short tail for readers that follow closely; an optional event index
 * (sqlite-event-index*.ts) is kept beside the log. docs/architecture.md explains each part.
 */
import Database from 'better-sqlite3';
import { v7 as timeOrderedUuid } from 'uuid';
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Clock, systemClock } from '../clock.js';
import { AppendJob, AppendOutcome, InlineWriter, ThreadWriter, Writer, WriterFailedError } from './sqlite-writer.js';
import { InlineIndexer, ThreadIndexer } from './sqlite-indexer.js';
import {
  AppendResult,
  BatchReadOptions,
  EventStore,
  ExpectedRevision,
  NewEvent,
  readAllBatches,
  ProjectedEvent,
  ReadAllOptions,
  RecordedEvent,
  StreamAppend,
  Subscription,
  WrongExpectedRevisionError,
} from './event-store.js';
import { GroupCommit } from './group-commit.js';
import { readAhead, ReadAheadTransform, TRANSFORMED_ON_THREAD } from './sqlite-reader.js';
import { PAGE_CACHE_PRAGMA } from './sqlite-pragmas.js';
import {
  fromBatchRow,
  fromProjectedRow,
  parseBatch,
  READ_AFTER,
  READ_PROJECTED_AFTER,
  READ_PROJECTED_TYPES_AFTER,
  READ_TYPES_AFTER,
  Row,
  toRecorded,
} from './sqlite-event-rows.js';
import { EventIndexEntry, EventIndexQuery, EventIndexRebuild, indexPathOf, SqliteEventIndex } from './sqlite-event-index.js';
import { openIndex } from './sqlite-event-index-schema.js';
import { IndexedAppend, SqliteEventIndexKeeper } from './sqlite-event-index-keeper.js';

export * from './sqlite-event-index.js';

interface PendingAppend extends IndexedAppend {
  /** The index entries of each event of the job, parts flattened in order (empty without an index). */
  entries: (readonly EventIndexEntry[])[];
  resolve: (events: RecordedEvent[][]) => void;
  reject: (error: Error) => void;
}

const BATCH = 1000;
const POLL_MS = 250;
/** Reads of at least this many positions use the read-ahead thread (starting one takes tens of ms). */
const READ_AHEAD_FROM = 20_000;
/** Events kept in the in-process tail (docs/architecture.md); a reader further behind reads the file. */
const RECENT = 4096;

export interface SqliteEventStoreOptions {
  /** File path, or ':memory:' for tests. */
  path: string;
  clock?: Clock;
  /** PRAGMA synchronous: FULL survives power loss, NORMAL only process crashes. */
  synchronous?: 'FULL' | 'NORMAL';
  /** How often an idle subscription looks for events written by another process. */
  pollMs?: number;
  /** Keep an event index beside the log (sqlite-event-index*.ts; docs/architecture.md). */
  index?: SqliteEventIndex;
  /** false: commit on the caller's thread (a file in memory always does). Default: a writer thread. */
  writerThread?: boolean;
  /** readBatches over at least this many positions reads ahead on a thread (a file in memory never does). */
  readAheadFrom?: number;
  /** How long the index's thread waits for a lock another connection holds on its file (ms; tests shorten it). */
  indexBusyTimeoutMs?: number;
  /**
   * When the index shows that the log lost events it had committed: false (the default) refuses
   * to open (EventLogLossError); true moves the index's file aside and builds a new one.
   */
  acceptEventLoss?: boolean;
}

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly path: string;
  private readonly readAheadFrom: number;
  /** Work the read-ahead thread does on each batch's text (the batches it makes carry TRANSFORMED_ON_THREAD). */
  readAheadTransform: ReadAheadTransform | undefined;
  private readonly clock: Clock;
  private readonly pollMs: number;
  private readonly appended = new EventEmitter();
  private closed = false;
  private readonly stmt: {
    readStream: Database.Statement<[string], Row>;
    readLastOfStream: Database.Statement<[string], Row>;
    readAfter: Database.Statement<[number, number, number], { batch: string | null }>;
    readTypesAfter: Database.Statement<[number, number, string, number], { batch: string | null }>;
    last: Database.Statement<[], { position: number | null }>;
    lastTime: Database.Statement<[], { created_at: string }>;
  };
  private writer: Writer;
  private readonly makeWriter: () => Writer;
  /** Appends waiting for their batch, and the batch being written (the next one waits for it). */
  private readonly batches = new GroupCommit<PendingAppend>((batch) => this.flush(batch));
  private closing = false;
  /** The last events this process appended, in position order (at most 2 × RECENT). */
  private recent: RecordedEvent[] = [];
  /** The open subscriptions, each with the position of the last event it has been handed. */
  private readonly followers = new Set<{ position: bigint }>();
  private readonly index: SqliteEventIndex | undefined;
  private readonly eventIndex: SqliteEventIndexKeeper | undefined;
  /** Set when this open (re)indexed events of the log. */
  readonly indexRebuild: EventIndexRebuild | undefined;

  constructor(options: SqliteEventStoreOptions) {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    this.db = new Database(options.path);
    this.clock = options.clock ?? systemClock;
    this.pollMs = options.pollMs ?? POLL_MS;
    this.path = options.path;
    this.readAheadFrom = options.readAheadFrom ?? READ_AHEAD_FROM;
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma(PAGE_CACHE_PRAGMA);
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
    this.index = options.index;
    const inMemory = options.path === ':memory:';
    const threads = !inMemory && options.writerThread !== false;
    if (this.index) {
      const indexPath = inMemory ? ':memory:' : indexPathOf(options.path);
      const busyTimeoutMs = options.indexBusyTimeoutMs ?? 5000;
      const makeIndexer = threads ? () => new ThreadIndexer(indexPath, busyTimeoutMs) : () => new InlineIndexer(this.db);
      const host = {
        head: () => this.stmt.last.get()?.position ?? 0,
        committing: () => this.batches.writing,
        closing: () => this.closing || this.closed,
        closed: () => this.closed,
      };
      try {
        const opened = openIndex(this.db, this.index, indexPath, options.acceptEventLoss === true, () => this.clock.now());
        this.indexRebuild = opened.rebuild;
        this.eventIndex = new SqliteEventIndexKeeper(this.db, this.index, opened, makeIndexer, host);
      } catch (error) {
        this.db.close();
        throw error;
      }
    }
    // Savepoint journals in memory, not a temporary file (docs/benchmarks.md); set after the
    // rebuild, whose index sort may then spill to a file, not the heap.
    this.db.pragma('temp_store = MEMORY');
    this.stmt = {
      readStream: this.db.prepare('SELECT * FROM events WHERE stream = ? ORDER BY revision'),
      readLastOfStream: this.db.prepare('SELECT * FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1'),
      readAfter: this.db.prepare(READ_AFTER),
      readTypesAfter: this.db.prepare(READ_TYPES_AFTER),
      last: this.db.prepare('SELECT MAX(position) AS position FROM events'),
      lastTime: this.db.prepare('SELECT created_at FROM events ORDER BY position DESC LIMIT 1'),
    };
    this.makeWriter = threads ? () => new ThreadWriter(options.path, options.synchronous ?? 'FULL') : () => new InlineWriter(this.db);
    this.writer = this.makeWriter();
  }

  /** The version of the index this store keeps (undefined: none). */
  get indexVersion(): string | undefined {
    return this.index?.version;
  }

  /** Indexed events of one (merchant, entity), in (created_at, position) order, at most `limit`. */
  async readIndex(query: EventIndexQuery): Promise<RecordedEvent[]> {
    return this.indexKeeper().readIndex(query);
  }

  /** Whether anything is indexed under (merchant, entity). */
  async inIndex(merchantId: number, entity: string): Promise<boolean> {
    return this.indexKeeper().inIndex(merchantId, entity);
  }

  private indexKeeper(): SqliteEventIndexKeeper {
    if (!this.eventIndex) throw new Error('this event store keeps no event index (open it with the index option)');
    return this.eventIndex;
  }

  async append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const [result] = await this.appendParts([{ streamName, events, expected }]);
    return result;
  }

  /** Several streams in one savepoint of one commit: all or none (see EventStore.appendMany). */
  appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    return this.appendParts(appends);
  }

  private async appendParts(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    if (appends.length === 0 || appends.some((a) => a.events.length === 0)) throw new Error('append needs at least one event');
    if (this.closed || this.closing) throw new Error('the event store is closed');
    const entries: (readonly EventIndexEntry[])[] = [];
    const job: AppendJob = {
      createdAt: this.clock.now().toISOString(),
      parts: appends.map(({ streamName, events, expected }) => ({
        stream: streamName,
        expected,
        events: events.map((event) => {
          const metadata = event.metadata ?? {};
          if (this.index) entries.push(this.index.entriesOf({ type: event.type, data: event.data, metadata, streamName }));
          return {
            // Time-ordered (UUIDv7): the UNIQUE index on ids grows at its end, not at a random page.
            id: event.id ?? timeOrderedUuid(),
            type: event.type,
            data: JSON.stringify(event.data),
            metadata: JSON.stringify(metadata),
          };
        }),
      })),
    };
    const recorded = await new Promise<RecordedEvent[][]>((resolve, reject) => {
      this.batches.add({ job, entries, resolve, reject });
    });
    return recorded.map((events) => {
      const last = events[events.length - 1];
      return { revision: last.revision, position: last.position, events };
    });
  }

  /**
   * Writes every waiting append in one transaction (one fsync), then answers each caller.
   * Appends that arrive while a batch is being written wait for it and form the next batch.
   */
  private async flush(batch: PendingAppend[]): Promise<void> {
    let outcomes: AppendOutcome[];
    // A writer thread that died (between batches, or under the last one) is replaced, as the
    // indexer's is: one lost thread must not leave the service unable to write until a restart.
    if (this.writer.broken) this.replaceWriter();
    try {
      outcomes = await this.writer.write(batch.map((item) => item.job));
    } catch (error) {
      // The commit itself failed (disk full, closed database): nothing of the batch was written.
      // (A thread that died under the batch may have committed it before: its callers are told
      // it failed, and a retry with an expected revision finds it there.)
      for (const item of batch) item.reject(error as Error);
      if (this.writer.broken) this.replaceWriter();
      return;
    }
    const answers = outcomes.map((outcome, i) => answerOf(batch[i], outcome));
    for (const answer of answers) if (!(answer instanceof Error)) this.remember(answer.flat());
    this.appended.emit('append');
    batch.forEach((item, i) => {
      const answer = answers[i];
      if (answer instanceof Error) item.reject(answer);
      else item.resolve(answer);
    });
    // Queued before any caller's continuation runs (they are microtasks after this), so a read of
    // the index that follows an answered append waits for its rows.
    if (this.eventIndex) {
      try {
        this.eventIndex.committed(batch, outcomes);
      } catch (error) {
        this.eventIndex.failed(error as Error);
      }
    }
  }

  async readStream(streamName: string): Promise<RecordedEvent[]> {
    return this.stmt.readStream.all(streamName).map(toRecorded);
  }

  async readLastOfStream(streamName: string): Promise<RecordedEvent | undefined> {
    const row = this.stmt.readLastOfStream.get(streamName);
    return row ? toRecorded(row) : undefined;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? 0n;
    const maxCount = options.maxCount ?? BATCH;
    const fromTail = options.types === undefined ? this.fromRecent(after, options.until, maxCount) : undefined;
    if (fromTail) return fromTail;
    const until = options.until === undefined ? Number.MAX_SAFE_INTEGER : Number(options.until);
    const { batch } = options.types
      ? this.stmt.readTypesAfter.get(Number(after), until, JSON.stringify(options.types), maxCount)!
      : this.stmt.readAfter.get(Number(after), until, maxCount)!;
    return batch === null ? [] : parseBatch(batch, fromBatchRow);
  }

  readBatches(options: BatchReadOptions & { provenance: false }): AsyncGenerator<ProjectedEvent[]>;
  readBatches(options: BatchReadOptions): AsyncGenerator<RecordedEvent[]>;
  async *readBatches(options: BatchReadOptions & { provenance?: boolean }): AsyncGenerator<ProjectedEvent[]> {
    const after = options.after ?? 0n;
    if (this.path === ':memory:' || options.until - after < BigInt(this.readAheadFrom)) {
      yield* readAllBatches(this, options);
      return;
    }
    // Without provenance, the thread leaves each event's id, revision and metadata out of the text.
    const projected = options.provenance === false;
    const transform = this.readAheadTransform;
    const sql = projected ? (options.types ? READ_PROJECTED_TYPES_AFTER : READ_PROJECTED_AFTER) : options.types ? READ_TYPES_AFTER : READ_AFTER;
    const types = options.types ? JSON.stringify(options.types) : undefined;
    const texts = readAhead({ path: this.path, sql, after: Number(after), until: Number(options.until), maxCount: options.maxCount, types }, transform);
    for await (const text of texts) {
      const batch: ProjectedEvent[] = projected ? parseBatch(text, fromProjectedRow) : parseBatch(text, fromBatchRow);
      if (transform) Object.defineProperty(batch, TRANSFORMED_ON_THREAD, { value: true });
      yield batch;
    }
  }

  /** Keeps appended events for readers that follow the log closely, less those every subscription has read. */
  private remember(events: RecordedEvent[]): void {
    if (events.length === 0) return;
    const recent = this.recent;
    recent.push(...events);
    let read = 0;
    if (this.followers.size > 0) {
      let slowest = recent[recent.length - 1].position;
      for (const follower of this.followers) if (follower.position < slowest) slowest = follower.position;
      while (read < recent.length && recent[read].position <= slowest) read += 1;
    }
    if (recent.length - read > 2 * RECENT) read = recent.length - RECENT;
    if (read > 0) this.recent = recent.slice(read);
  }

  /** Events in the in-process tail (for tests). */
  get tailLength(): number {
    return this.recent.length;
  }

  /**
   * The events after `after` from the in-process tail, when the tail holds the very next
   * position (no other writer's event can be missing before them); stops at the first gap.
   */
  private fromRecent(after: bigint, until: bigint | undefined, maxCount: number): RecordedEvent[] | undefined {
    const recent = this.recent;
    if (recent.length === 0 || recent[0].position > after + 1n || recent[recent.length - 1].position <= after) return undefined;
    let lo = 0;
    let hi = recent.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (recent[mid].position <= after) lo = mid + 1;
      else hi = mid;
    }
    if (recent[lo].position !== after + 1n) return undefined;
    const out: RecordedEvent[] = [];
    for (let i = lo, expected = after + 1n; i < recent.length && out.length < maxCount; i += 1, expected += 1n) {
      const event = recent[i];
      if (event.position !== expected || (until !== undefined && event.position > until)) break;
      out.push(event);
    }
    return out.length > 0 ? out : undefined;
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
    const follower = { position: after };
    this.followers.add(follower);
    const stop = () => {
      open = false;
      store.appended.off('append', onAppend);
      store.followers.delete(follower);
      wake?.();
    };
    async function* iterate(): AsyncGenerator<RecordedEvent> {
      try {
        while (open && !store.closed) {
          signalled = false;
          const batch = await store.readAll({ after: follower.position, maxCount: BATCH });
          for (const event of batch) {
            if (!open) return;
            follower.position = event.position;
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

  async lastEventTime(): Promise<Date | undefined> {
    const row = this.stmt.lastTime.get();
    return row ? new Date(row.created_at) : undefined;
  }

  async ping(): Promise<void> {
    this.stmt.last.get();
    // A writer thread that died while idle is replaced now, not at the next append.
    if (this.writer.broken) this.replaceWriter();
  }

  private replaceWriter(): void {
    if (this.closing || this.closed) return;
    void this.writer.close().catch(() => undefined);
    this.writer = this.makeWriter();
  }

  async close(): Promise<void> {
    if (this.closed || this.closing) return;
    this.closing = true;
    // Appends still waiting for their turn are written before the file closes.
    await this.batches.drain();
    await this.writer.close();
    if (this.eventIndex) await this.eventIndex.close();
    this.closed = true;
    this.appended.emit('append');
    this.db.close();
  }
}

/** The caller's answer: its events as recorded, per stream (data parsed back from the stored text, a copy of its own), or why not. */
function answerOf(item: PendingAppend, outcome: AppendOutcome): RecordedEvent[][] | Error {
  const { job } = item;
  if (outcome.ok) {
    return job.parts.map((part, p) =>
      part.events.map((event, i) => ({
        id: event.id,
        type: event.type,
        data: JSON.parse(event.data),
        metadata: JSON.parse(event.metadata),
        streamName: part.stream,
        revision: outcome.parts[p].firstRevision + i,
        position: BigInt(outcome.parts[p].positions[i]),
        createdAt: new Date(job.createdAt),
      })),
    );
  }
  if (outcome.actual !== undefined) {
    const refused = job.parts[outcome.part];
    return new WrongExpectedRevisionError(refused.stream, refused.expected, outcome.actual);
  }
  return new WriterFailedError(outcome.message, outcome.code);
}
