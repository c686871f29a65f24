/**
 * The write side of the embedded event store: one transaction per batch of appends (group
 * commit), a savepoint per append and the expected-revision check. (The event index's rows are
 * written after the commit, by the indexer: sqlite-indexer.ts.)
 *
 * By default it runs on a worker thread with a connection of its own, so the main thread never
 * waits for a commit's fsync: it keeps serving requests while the batch is made durable, and the
 * appends that arrive meanwhile form the next batch. A file held in memory (':memory:', tests)
 * cannot be shared between connections, so there the same code runs on the caller's thread.
 *
 * Everything the writer needs is prepared on the caller's thread (ids, JSON texts, the time),
 * so the writer only runs SQL. `makeWriter` and `writerThreadMain` are shipped to the worker as
 * their source text (`Function.prototype.toString`): they must not use anything from this
 * module's scope, only their arguments and `require` inside the worker.
 */
import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import type { ExpectedRevision } from './event-store.js';
import { answerRequests, SerialWorker } from './serial-worker.js';
import { PAGE_CACHE_PRAGMA } from './sqlite-pragmas.js';

/** The events for one stream. */
export interface StreamAppendJob {
  stream: string;
  expected: ExpectedRevision;
  events: { id: string; type: string; data: string; metadata: string }[];
}

/** One caller's append: to one stream, or to several at once (all or none). */
export interface AppendJob {
  createdAt: string;
  parts: StreamAppendJob[];
}

export type AppendOutcome =
  | { ok: true; parts: { positions: number[]; firstRevision: number }[] }
  /** Refused: the actual revision of the stream of `parts[part]` did not match the expected one. */
  | { ok: false; part: number; actual: number | 'no_stream' }
  | { ok: false; actual?: undefined; message: string; code?: string };

/** Writes one batch in one transaction and answers each append; throws when the commit itself fails. */
export type WriteBatch = (jobs: AppendJob[]) => AppendOutcome[];

export function makeWriter(db: Database.Database): WriteBatch {
  const head = db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const headOf = (stream: string): number | null => (head.get(stream) as { revision: number | null } | undefined)?.revision ?? null;
  /** The part being written (for the report of a refusal). */
  let partIndex = 0;
  const appendOne = db.transaction((job: AppendJob) => {
    const parts: { positions: number[]; firstRevision: number }[] = [];
    for (partIndex = 0; partIndex < job.parts.length; partIndex += 1) {
      const part = job.parts[partIndex];
      const current = headOf(part.stream);
      if (part.expected !== 'any') {
        const ok = part.expected === 'no_stream' ? current === null : current === part.expected;
        if (!ok) throw { refused: current ?? 'no_stream' };
      }
      const positions: number[] = [];
      let revision = current ?? -1;
      for (const event of part.events) {
        revision += 1;
        positions.push(Number(insert.run(event.id, part.stream, revision, event.type, event.data, event.metadata, job.createdAt).lastInsertRowid));
      }
      parts.push({ positions, firstRevision: (current ?? -1) + 1 });
    }
    return { ok: true as const, parts };
  });
  const batch = db.transaction((jobs: AppendJob[]): AppendOutcome[] => {
    return jobs.map((job): AppendOutcome => {
      try {
        // A nested better-sqlite3 transaction is a savepoint: a refused append rolls back alone, with all its parts.
        return appendOne(job);
      } catch (error) {
        // SQLite itself rolled the whole batch back (an I/O error, out of memory, a full disk): every
        // append before this one is gone, and one after it would run outside any transaction and
        // commit alone while its caller is told the batch failed. The batch fails as a whole.
        if (!db.inTransaction) throw error;
        const e = error as { refused?: number | 'no_stream'; code?: string; message?: string };
        const part = job.parts[partIndex];
        if (e.refused !== undefined) return { ok: false, part: partIndex, actual: e.refused };
        // Another writer took the revision (UNIQUE (stream, revision)); a repeated event id is not a refusal.
        if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' && /events\.revision/.test(e.message ?? '') && part && part.expected !== 'any') {
          return { ok: false, part: partIndex, actual: headOf(part.stream) ?? 'no_stream' };
        }
        return { ok: false, message: String(e.message ?? error), code: e.code };
      }
    });
  });
  // BEGIN IMMEDIATE: the write lock first (waiting for it as long as busy_timeout allows), where a
  // deferred transaction that reads a stream's head and then writes fails at once if another
  // process committed in between (SQLITE_BUSY_SNAPSHOT).
  return (jobs) => batch.immediate(jobs);
}

/** The worker's main function; `makeWriterFn` is makeWriter, passed in as a value. */
function writerThreadMain(makeWriterFn: typeof makeWriter, answer: typeof answerRequests): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parentPort, workerData } = require('node:worker_threads');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Driver = require(workerData.driver);
  const db = new Driver(workerData.path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${workerData.synchronous}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('temp_store = MEMORY');
  db.pragma(workerData.pageCache);
  const write = makeWriterFn(db);
  answer(parentPort, db, write);
}

export interface Writer {
  write(jobs: AppendJob[]): Promise<AppendOutcome[]>;
  close(): Promise<void>;
  /** The writer can write no more (its thread is gone): the store makes another. */
  readonly broken: boolean;
}

/** The writer on the caller's thread, on the store's own connection. */
export class InlineWriter implements Writer {
  private readonly batch: WriteBatch;
  constructor(db: Database.Database) {
    this.batch = makeWriter(db);
  }
  async write(jobs: AppendJob[]): Promise<AppendOutcome[]> {
    return this.batch(jobs);
  }
  async close(): Promise<void> {}
  readonly broken = false;
}

export class WriterFailedError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'WriterFailedError';
  }
}

/** The writer on a worker thread: one batch in flight at a time (the store queues the next). */
export class ThreadWriter implements Writer {
  private readonly thread: SerialWorker<AppendJob[], AppendOutcome[]>;

  constructor(path: string, synchronous: 'FULL' | 'NORMAL') {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.thread = new SerialWorker(
      `(${writerThreadMain.toString()})(${makeWriter.toString()}, ${answerRequests.toString()})`,
      { driver, path, synchronous, pageCache: PAGE_CACHE_PRAGMA },
      "the event store's writer thread",
      (message, code) => new WriterFailedError(message, code),
    );
  }

  write(jobs: AppendJob[]): Promise<AppendOutcome[]> {
    return this.thread.request(jobs);
  }

  get broken(): boolean {
    return this.thread.broken;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
