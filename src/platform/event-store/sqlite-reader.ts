/**
 * Read-ahead for long reads of the embedded log (a rebuild, catching up at start-up): a worker
 * thread with a read-only connection of its own runs the batch queries and sends each batch as
 * its JSON text, at most `AHEAD` batches ahead of the caller, so that the main thread only
 * parses and applies while the next batch is being read (measured: the query was 14 % of a
 * replay's main thread).
 *
 * `readerThreadMain` is shipped to the worker as its source text, like the writer's: it must
 * use nothing from this module's scope, only `require` inside the worker and its workerData.
 * A transform (ReadAheadTransform) may change each batch's text on the thread before it is sent.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { PAGE_CACHE_PRAGMA } from './sqlite-pragmas.js';

/** Batches read but not yet taken by the caller. */
const AHEAD = 2;

export interface ReadAheadQuery {
  path: string;
  /** SQL returning one row { batch: JSON text | null, last: last position | null } for (after, until, maxCount) or (after, until, types JSON, maxCount). */
  sql: string;
  after: number;
  until: number;
  maxCount: number;
  /** JSON array of types, or undefined for every type. */
  types?: string;
}

/**
 * Work done on the reader thread to each batch's text before it is sent (the personal-data layer
 * opens sealed values there: personal-data/thread-opener.ts). `source` is a function's source text,
 * `(data, require) => (text: string) => string`, that uses only its arguments.
 */
export interface ReadAheadTransform {
  source: string;
  data: unknown;
}

/** Set on each batch (array of events) made from a transformed text. */
export const TRANSFORMED_ON_THREAD = Symbol('transformed on the reader thread');

type ReaderMessage = { batch: string } | { end: true } | { failed: { message: string; code?: string } };

function readerThreadMain(makeTransform?: (data: unknown, require: NodeJS.Require) => (text: string) => string): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parentPort, workerData } = require('node:worker_threads');
  const transform = makeTransform ? makeTransform(workerData.transformData, require) : (text: string) => text;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Driver = require(workerData.driver);
  const query = workerData.query as ReadAheadQuery;
  const db = new Driver(query.path, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma(workerData.pageCache);
  const stmt = db.prepare(query.sql);
  let after = query.after;
  let credit = 0;
  let finished = false;
  const read = () => {
    while (credit > 0 && !finished) {
      credit -= 1;
      try {
        const row = (query.types === undefined ? stmt.get(after, query.until, query.maxCount) : stmt.get(after, query.until, query.types, query.maxCount)) as {
          batch: string | null;
          last: number | null;
        };
        if (row.batch === null || row.last === null) {
          finished = true;
          parentPort.postMessage({ end: true });
        } else {
          after = row.last;
          parentPort.postMessage({ batch: transform(row.batch) });
        }
      } catch (error) {
        finished = true;
        const e = error as { message?: string; code?: string };
        parentPort.postMessage({ failed: { message: String(e.message ?? error), code: e.code } });
      }
    }
    if (finished) db.close();
  };
  parentPort.on('message', (message: { more?: number }) => {
    credit += message.more ?? 0;
    read();
  });
}

/** The batches' texts in order; ends after the last one. Breaking out of the loop stops the reader. */
export async function* readAhead(query: ReadAheadQuery, transform?: ReadAheadTransform): AsyncGenerator<string> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(`(${readerThreadMain.toString()})(${transform?.source ?? ''})`, {
    eval: true,
    workerData: { driver, query, pageCache: PAGE_CACHE_PRAGMA, transformData: transform?.data },
  });
  const arrived: ReaderMessage[] = [];
  let wake: (() => void) | undefined;
  let broken: Error | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: ReaderMessage) => {
    arrived.push(message);
    notify();
  });
  worker.on('error', (error) => {
    broken = error;
    notify();
  });
  worker.on('exit', (code) => {
    broken ??= new Error(`the event store's reader thread exited (code ${code})`);
    notify();
  });
  try {
    worker.postMessage({ more: AHEAD });
    for (;;) {
      while (arrived.length === 0) {
        if (broken) throw broken;
        await new Promise<void>((resolve) => (wake = resolve));
      }
      const message = arrived.shift()!;
      if ('end' in message) return;
      if ('failed' in message) throw Object.assign(new Error(message.failed.message), { code: message.failed.code });
      worker.postMessage({ more: 1 });
      yield message.batch;
    }
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
