/**
 * The write side of the embedded store's event index (see the top of sqlite-event-store.ts): rows
 * for events that are already committed, written to the index's own file with the position they
 * reach (the watermark) in the same transaction, so the index is always a prefix of the log.
 *
 * By default on a thread of its own, with a connection of its own to the index file only: the
 * index rows (random pages of a B-tree, about a third of an append's CPU) then no longer lengthen
 * the writer thread's turn, on which every append waits, and they need no fsync of their own (a
 * crash loses at most the newest rows, which the store indexes again from the log at open). A
 * store in memory, or one opened without a writer thread, writes them on its own connection.
 *
 * `indexerThreadMain` and `makeIndexWrite` are shipped to the worker as their source text, like
 * the writer's: they must use nothing from this module's scope, only their arguments and `require`.
 */
import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { answerRequests, SerialWorker } from './serial-worker.js';
import { PAGE_CACHE_PRAGMA } from './sqlite-pragmas.js';

/** One row of the index: what `event_index` holds. */
export type IndexRow = [merchantId: number, entity: string, createdAt: string, position: number, type: string];

/** Rows of events up to `through` (inclusive), whose id is `throughId`: after them the index reaches `through`. */
export interface IndexBatch {
  rows: IndexRow[];
  through: number;
  throughId: string;
}

/** The schema the index's tables live in, on the store's own connection (the index file attached). */
export const INDEX_SCHEMA_NAME = 'idx';

/** Writes one batch in one transaction; `schema` is the prefix of the tables ('' or 'idx.'). */
export function makeIndexWrite(db: Database.Database, schema: string): (batch: IndexBatch) => void {
  const insert = db.prepare(`INSERT OR IGNORE INTO ${schema}event_index (merchant_id, entity, created_at, position, type) VALUES (?, ?, ?, ?, ?)`);
  // The watermark only moves forward (two processes sharing a file each index every event).
  const reach = db.prepare(`UPDATE ${schema}event_index_meta SET position = ?, event_id = ? WHERE name = 'event_index' AND position < ?`);
  return db.transaction((batch: IndexBatch) => {
    for (const row of batch.rows) insert.run(row[0], row[1], row[2], row[3], row[4]);
    reach.run(batch.through, batch.throughId, batch.through);
  });
}

function indexerThreadMain(makeIndexWriteFn: typeof makeIndexWrite, answer: typeof answerRequests): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parentPort, workerData } = require('node:worker_threads');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Driver = require(workerData.driver);
  const db = new Driver(workerData.path, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  // Durable against a crash of the process; what a power loss takes is indexed again at open.
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${workerData.busyTimeoutMs}`);
  db.pragma('temp_store = MEMORY');
  db.pragma(workerData.pageCache);
  const write = makeIndexWriteFn(db, '');
  answer(parentPort, db, (batch: IndexBatch) => {
    write(batch);
    return true;
  });
}

export interface Indexer {
  /** Resolves once the batch is committed to the index. One batch at a time. */
  write(batch: IndexBatch): Promise<void>;
  /** True when it can write nothing more (its thread is gone): the store starts another. */
  readonly broken: boolean;
  close(): Promise<void>;
}

/** On the store's own connection, where the index's tables are in schema `idx`. */
export class InlineIndexer implements Indexer {
  readonly broken = false;
  private readonly batch: (batch: IndexBatch) => void;
  constructor(db: Database.Database) {
    this.batch = makeIndexWrite(db, `${INDEX_SCHEMA_NAME}.`);
  }
  async write(batch: IndexBatch): Promise<void> {
    this.batch(batch);
  }
  async close(): Promise<void> {}
}

export class IndexerFailedError extends Error {
  constructor(message: string) {
    super(`the event index could not be written: ${message}`);
    this.name = 'IndexerFailedError';
  }
}

/** On a worker thread with its own connection to the index file. */
export class ThreadIndexer implements Indexer {
  private readonly thread: SerialWorker<IndexBatch, true>;

  constructor(indexPath: string, busyTimeoutMs: number) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.thread = new SerialWorker(
      `(${indexerThreadMain.toString()})(${makeIndexWrite.toString()}, ${answerRequests.toString()})`,
      { driver, path: indexPath, busyTimeoutMs, pageCache: PAGE_CACHE_PRAGMA },
      "the event index's thread",
      (message) => new IndexerFailedError(message),
    );
  }

  async write(batch: IndexBatch): Promise<void> {
    await this.thread.request(batch);
  }

  get broken(): boolean {
    return this.thread.broken;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
