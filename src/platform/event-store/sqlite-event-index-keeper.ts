/**
 * Keeps the event index written and answers its queries: the rows of each committed batch go to
 * the indexer's thread, and a read first waits until the index holds every event it should see.
 */
import Database from 'better-sqlite3';
import { RecordedEvent } from './event-store.js';
import { AppendJob, AppendOutcome } from './sqlite-writer.js';
import { IndexBatch, Indexer, INDEX_SCHEMA_NAME, IndexRow } from './sqlite-indexer.js';
import { Row, toRecorded } from './sqlite-event-rows.js';
import { EVERY_ENTRY, EventIndexEntry, EventIndexQuery, SqliteEventIndex } from './sqlite-event-index.js';
import { logRows, OpenedIndex } from './sqlite-event-index-schema.js';

/** Above every created_at (ASCII ISO 8601): the upper bound of a query without one. */
const NO_UPPER_TIME = '\uffff';
const MAX_POSITION = 2n ** 63n - 1n;

/** What the index needs of its store: the log's head, the batch being committed, whether it is closing or closed. */
export interface IndexHost {
  head(): number;
  committing(): Promise<void> | undefined;
  closing(): boolean;
  closed(): boolean;
}

/** An append as the index sees it: the job and the entries of each of its events, in order. */
export interface IndexedAppend {
  job: AppendJob;
  entries: (readonly EventIndexEntry[])[];
}

interface IndexStatements {
  all: Database.Statement<IndexParams, Row>;
  logByType: Database.Statement<Omit<IndexParams, 'entity'> & { type: string }, Row>;
  byTypes: Database.Statement<IndexParams & { types: string }, Row>;
  byStream: Database.Statement<Omit<IndexParams, 'afterTime'> & { from: string; stream: string; types: string | null }, Row>;
  exists: Database.Statement<[number, string], { found: number }>;
}

interface IndexParams {
  merchant: number;
  entity: string;
  afterTime: string;
  afterPosition: bigint;
  before: string;
  limit: number;
}

export class SqliteEventIndexKeeper {
  private readonly indexStmt: IndexStatements;
  private indexer: Indexer;
  /** Rows waiting for the indexer, and the position (and its event's id) they reach. */
  private indexQueue: IndexRow[] = [];
  private indexQueued: number;
  private indexQueuedId: string;
  /** Position up to which the index is committed (its watermark), and its event's id. */
  private indexDurable: number;
  private indexDurableId: string;
  private indexing: Promise<void> | undefined;
  private indexWaiters: { position: number; resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(
    private readonly db: Database.Database,
    private readonly index: SqliteEventIndex,
    opened: OpenedIndex,
    private readonly makeIndexer: () => Indexer,
    private readonly host: IndexHost,
  ) {
    this.indexDurable = this.indexQueued = opened.position;
    this.indexDurableId = this.indexQueuedId = opened.eventId;
    this.indexStmt = this.prepareIndex();
    this.indexer = makeIndexer();
  }

  private prepareIndex(): IndexStatements {
    const columns = 'e.position, e.id, e.stream, e.revision, e.type, e.data, e.metadata, e.created_at';
    // One row value bounds the range from below (cursor or `from`), so each query is one indexed range scan.
    const range = '(i.created_at, i.position) > (@afterTime, @afterPosition) AND i.created_at < @before';
    return {
      all: this.db.prepare(
        `SELECT ${columns} FROM ${INDEX_SCHEMA_NAME}.event_index i CROSS JOIN events e ON e.position = i.position
         WHERE i.merchant_id = @merchant AND i.entity = @entity AND ${range}
         ORDER BY i.created_at, i.position LIMIT @limit`,
      ),
      // The literal '*' lets SQLite use the partial index.
      logByType: this.db.prepare(
        `SELECT ${columns} FROM ${INDEX_SCHEMA_NAME}.event_index i INDEXED BY event_index_log_by_type CROSS JOIN events e ON e.position = i.position
         WHERE i.merchant_id = @merchant AND i.entity = '${EVERY_ENTRY}' AND i.type = @type AND ${range}
         ORDER BY i.created_at, i.position LIMIT @limit`,
      ),
      // An entity's entries in order, filtered by type as they are read (stops at `limit`).
      byTypes: this.db.prepare(
        `SELECT ${columns} FROM ${INDEX_SCHEMA_NAME}.event_index i CROSS JOIN events e ON e.position = i.position
         WHERE i.merchant_id = @merchant AND i.entity = @entity AND ${range}
           AND i.type IN (SELECT value FROM json_each(@types))
         ORDER BY i.created_at, i.position LIMIT @limit`,
      ),
      // A stream is one aggregate, listed in its own order (revision, which is position order)
      // from the cursor's revision on, by the events' own (stream, revision) index, each checked
      // against the index: a page costs its own rows (and those the filters skip), not the stream.
      byStream: this.db.prepare(
        `SELECT ${columns} FROM events e CROSS JOIN ${INDEX_SCHEMA_NAME}.event_index i
           ON i.merchant_id = @merchant AND i.entity = @entity AND i.created_at = e.created_at AND i.position = e.position
         WHERE e.stream = @stream
           AND e.revision > COALESCE((SELECT c.revision FROM events c WHERE c.position = @afterPosition AND c.stream = @stream), -1)
           AND e.position > @afterPosition AND e.created_at >= @from AND e.created_at < @before
           AND (@types IS NULL OR e.type IN (SELECT value FROM json_each(@types)))
         ORDER BY e.revision LIMIT @limit`,
      ),
      exists: this.db.prepare(`SELECT 1 AS found FROM ${INDEX_SCHEMA_NAME}.event_index WHERE merchant_id = ? AND entity = ? LIMIT 1`),
    };
  }

  private indexStatements(): IndexStatements {
    if (this.host.closed()) throw new Error('the event store is closed');
    return this.indexStmt;
  }

  /**
   * Indexed events of one (merchant, entity), in (created_at, position) order, at most `limit`.
   * Each is one range of the index: the entity's entries (filtered by type as they are read), the
   * merchant-wide entries of one type (several types: one range each, merged), or a stream's
   * events (by the events' own index) checked against the index.
   */
  async readIndex(query: EventIndexQuery): Promise<RecordedEvent[]> {
    this.indexStatements();
    await this.indexCaughtUp();
    const stmt = this.indexStatements();
    let afterTime = '';
    let afterPosition = -1n;
    if (query.createdFrom !== undefined) afterTime = query.createdFrom;
    if (query.after && (query.createdFrom === undefined || query.after.createdAt >= query.createdFrom)) {
      afterTime = query.after.createdAt;
      afterPosition = query.after.position < -1n ? -1n : query.after.position > MAX_POSITION ? MAX_POSITION : query.after.position;
    }
    const params: IndexParams = {
      merchant: query.merchantId,
      entity: query.entity,
      afterTime,
      afterPosition,
      before: query.createdBefore ?? NO_UPPER_TIME,
      limit: query.limit,
    };
    const types = query.types?.length ? [...new Set(query.types)] : undefined;
    let rows: Row[];
    if (query.stream !== undefined) {
      const { afterTime: _, ...stream } = params;
      rows = stmt.byStream.all({ ...stream, from: query.createdFrom ?? '', stream: query.stream, types: types ? JSON.stringify(types) : null });
    } else if (!types) {
      rows = stmt.all.all(params);
    } else if (query.entity !== EVERY_ENTRY) {
      rows = stmt.byTypes.all({ ...params, types: JSON.stringify(types) });
    } else if (types.length === 1) {
      const { entity: _, ...log } = params;
      rows = stmt.logByType.all({ ...log, type: types[0] });
    } else {
      const { entity: _, ...log } = params;
      rows = types
        .flatMap((type) => stmt.logByType.all({ ...log, type }))
        .sort((a, b) => (a.created_at !== b.created_at ? (a.created_at < b.created_at ? -1 : 1) : a.position - b.position))
        .slice(0, query.limit);
    }
    return rows.map(toRecorded);
  }

  /** Whether anything is indexed under (merchant, entity). */
  async inIndex(merchantId: number, entity: string): Promise<boolean> {
    this.indexStatements();
    await this.indexCaughtUp();
    return this.indexStatements().exists.get(merchantId, entity) !== undefined;
  }

  /**
   * Waits until the index holds every event the log held when it was called: this process's
   * appends are indexed after their commit (and the batch being committed is waited for), events
   * another process appended are indexed from the log here.
   */
  private async indexCaughtUp(): Promise<void> {
    const head = this.host.head();
    for (let writing = this.host.committing(); writing; writing = this.host.committing()) await writing;
    if (head > this.indexQueued) {
      for (const batch of logRows(this.db, this.index, this.indexQueued, head)) this.queueIndex(batch.rows, batch.last, batch.lastId);
    }
    await this.indexedThrough(head);
  }

  /** Adds rows for the indexer; `through` is the position they bring the index to. */
  private queueIndex(rows: IndexRow[], through: number, throughId: string): void {
    for (const row of rows) this.indexQueue.push(row);
    if (through > this.indexQueued) {
      this.indexQueued = through;
      this.indexQueuedId = throughId;
    }
    this.startIndexing();
  }

  /** One index batch at a time; rows queued meanwhile form the next one. */
  private startIndexing(): void {
    if (this.indexing || (this.indexDurable >= this.indexQueued && this.indexQueue.length === 0)) return;
    this.indexing = (async () => {
      while (this.indexDurable < this.indexQueued || this.indexQueue.length > 0) {
        const batch: IndexBatch = { rows: this.indexQueue, through: this.indexQueued, throughId: this.indexQueuedId };
        this.indexQueue = [];
        await this.indexer!.write(batch);
        this.indexDurable = batch.through;
        this.indexDurableId = batch.throughId;
        this.indexWaiters = this.indexWaiters.filter((waiter) => (waiter.position <= batch.through ? (waiter.resolve(), false) : true));
      }
    })()
      .catch((error: Error) => this.failed(error))
      .finally(() => {
        this.indexing = undefined;
        this.startIndexing();
      });
  }

  /**
   * A batch of the index could not be written (a lock held past the busy timeout, a full disk, its
   * thread died). The log is intact: the reads waiting fail, what was queued is dropped, and the
   * next read or append indexes again from the log after the watermark, on a new thread if the
   * old one is gone. Nothing stays broken once the cause is gone.
   */
  failed(error: Error): void {
    this.indexQueue = [];
    this.indexQueued = this.indexDurable;
    this.indexQueuedId = this.indexDurableId;
    if (this.indexer.broken) {
      void this.indexer.close().catch(() => undefined);
      this.indexer = this.host.closing() ? this.indexer : this.makeIndexer();
    }
    const waiters = this.indexWaiters;
    this.indexWaiters = [];
    for (const waiter of waiters) waiter.reject(error);
  }

  private indexedThrough(position: number): Promise<void> {
    if (this.indexDurable >= position) return Promise.resolve();
    return new Promise((resolve, reject) => this.indexWaiters.push({ position, resolve, reject }));
  }

  /** Queues the index rows of a committed batch's events (and of any event another process appended before them). */
  committed(batch: readonly IndexedAppend[], outcomes: AppendOutcome[]): void {
    const rows: IndexRow[] = [];
    let first = Number.MAX_SAFE_INTEGER;
    let through = 0;
    let throughId = '';
    batch.forEach(({ job, entries }, i) => {
      const outcome = outcomes[i];
      if (!outcome.ok) return;
      let k = 0;
      job.parts.forEach((part, p) =>
        part.events.forEach((event, e) => {
          const position = outcome.parts[p].positions[e];
          for (const entry of entries[k]) rows.push([entry.merchantId, entry.entity, job.createdAt, position, event.type]);
          k += 1;
          if (position < first) first = position;
          if (position > through) {
            through = position;
            throughId = event.id;
          }
        }),
      );
    });
    if (through === 0) return;
    if (first > this.indexQueued + 1) {
      // Positions before this batch that this process did not write: another process's appends.
      for (const foreign of logRows(this.db, this.index, this.indexQueued, first - 1)) this.queueIndex(foreign.rows, foreign.last, foreign.lastId);
    }
    this.queueIndex(rows, through, throughId);
  }

  /** Waits for the batch being indexed, then stops the indexer. */
  async close(): Promise<void> {
    while (this.indexing) await this.indexing;
    await this.indexer.close();
  }
}
