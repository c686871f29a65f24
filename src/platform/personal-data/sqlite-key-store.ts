/**
 * The embedded key store: a SQLite file of its own beside the log (`events.sqlite-keys`), so that
 * a copy of the log alone holds no key. `secure_delete` overwrites a destroyed key's bytes, and the
 * WAL is checkpointed and truncated after each destruction, so no file keeps them.
 *
 * New keys are committed on a worker thread with a connection of its own (group commit, as the
 * log's writer does: sqlite-writer.ts), so the main thread never waits for a commit's fsync; the
 * main thread keeps its connection for lookups by id, destructions and the secret. A file in memory
 * cannot be shared between connections, so there the same code runs on the caller's thread.
 * `openKeyFile`, `makeKeyWriter` and `keyThreadMain` are shipped to the thread as their source
 * text (`Function.prototype.toString`): they use only their arguments and `require`.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { GroupCommit } from '../event-store/group-commit.js';
import { answerRequests, SerialWorker } from '../event-store/serial-worker.js';
import { KeyStore, SubjectKey } from './key-store.js';

/** Random bytes for this many keys are drawn at once: each call into the CSPRNG costs more than the bytes. */
const POOLED_KEYS = 64;
let pool = Buffer.alloc(0);
let pooled = 0;

/** Ids and keys are random: an id says nothing of its subject. */
export const newKey = (): SubjectKey => {
  if (pooled + 48 > pool.length) {
    pool = randomBytes(48 * POOLED_KEYS);
    pooled = 0;
  }
  const bytes = pool.subarray(pooled, (pooled += 48));
  // The key is a copy in memory of its own (not Node's shared slab): it must not keep the pool,
  // and so the keys to come, alive, and a message to the writer thread copies only its bytes.
  const key = Buffer.allocUnsafeSlow(32);
  bytes.copy(key, 0, 16);
  return { id: bytes.toString('base64url', 0, 16), key };
};

/** A new key to write: subject, id, key. */
type KeyRow = [string, string, Uint8Array];

/** A subject's key that was there before its row was written: the row's index, the key's id and bytes. */
type KeptKey = [number, string, Uint8Array];

/** Writes one batch of new keys in one transaction; answers the keys kept instead of the batch's (their subject had one already). */
type WriteKeys = (rows: KeyRow[]) => KeptKey[];

/** The settings and schema of every connection to the file (the store's own and its thread's). */
function openKeyFile(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('secure_delete = ON');
  db.pragma('busy_timeout = 5000');
  db.exec(`
    CREATE TABLE IF NOT EXISTS subject_keys (subject TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, key BLOB NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS key_store_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
  `);
}

function makeKeyWriter(db: Database.Database): WriteKeys {
  const insert = db.prepare('INSERT OR IGNORE INTO subject_keys (subject, id, key) VALUES (?, ?, ?)');
  const existing = db.prepare('SELECT id, key FROM subject_keys WHERE subject = ?').raw();
  // BEGIN IMMEDIATE: waits for another process's write lock (busy_timeout) rather than failing at once.
  const write = db.transaction((rows: KeyRow[]) => {
    const kept: KeptKey[] = [];
    rows.forEach((row, i) => {
      if (insert.run(row[0], row[1], row[2]).changes > 0) return;
      const found = existing.get(row[0]) as [string, Uint8Array] | undefined;
      // Ignored for its id, not its subject (an id drawn twice): the whole batch fails, none of it is kept.
      if (!found) throw new Error('a new key was neither written nor found');
      kept.push([i, found[0], found[1]]);
    });
    return kept;
  });
  return (rows) => write.immediate(rows);
}

/** The thread's main function; the others are passed in as values. Protocol: serial-worker.ts. */
function keyThreadMain(open: typeof openKeyFile, makeWriter: typeof makeKeyWriter, answer: typeof answerRequests): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parentPort, workerData } = require('node:worker_threads');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Driver = require(workerData.driver);
  const db = new Driver(workerData.path);
  open(db);
  const write = makeWriter(db);
  answer(parentPort, db, write);
}

/** New keys could not be made: the batch's transaction failed, or the key store's thread is gone. */
export class KeyWriteFailedError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(`could not make new subject keys: ${message}`);
    this.name = 'KeyWriteFailedError';
  }
}

interface Waiter {
  subjects: ReadonlySet<string>;
  resolve: (made: Map<string, SubjectKey>) => void;
  reject: (error: Error) => void;
}

export class SqliteKeyStore implements KeyStore {
  private readonly db: Database.Database;
  private readonly bySubject: Database.Statement<[string], { id: string; key: Buffer }>;
  private readonly byId: Database.Statement<[string], { key: Buffer }>;
  private readonly remove: Database.Statement<[string]>;
  /** The thread that commits new keys (absent in memory, where `write` runs on this thread). */
  private readonly thread: SerialWorker<KeyRow[], KeptKey[]> | undefined;
  private readonly write: (rows: KeyRow[]) => Promise<KeptKey[]>;
  /** keysFor calls waiting for the next batch of new keys, and the batch being written. */
  private readonly batches = new GroupCommit<Waiter>((batch) => this.makeKeys(batch));
  private closing: Promise<void> | undefined;

  /** `secret`: the one to keep when the store has none yet (random otherwise). */
  constructor(
    readonly path: string,
    private readonly options: { secret?: Buffer } = {},
  ) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    // The schema exists before the thread opens the file.
    openKeyFile(this.db);
    this.bySubject = this.db.prepare('SELECT id, key FROM subject_keys WHERE subject = ?');
    this.byId = this.db.prepare('SELECT key FROM subject_keys WHERE id = ?');
    this.remove = this.db.prepare('DELETE FROM subject_keys WHERE subject = ?');
    if (path === ':memory:') {
      const write = makeKeyWriter(this.db);
      this.write = async (rows) => write(rows);
    } else {
      const thread = new SerialWorker<KeyRow[], KeptKey[]>(
        `(${keyThreadMain.toString()})(${openKeyFile.toString()}, ${makeKeyWriter.toString()}, ${answerRequests.toString()})`,
        { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path },
        "the key store's writer thread",
        (message, code) => new KeyWriteFailedError(message, code),
      );
      this.thread = thread;
      this.write = (rows) => thread.request(rows);
    }
  }

  /**
   * Every subject waits for the next batch, which writes a key for each one asked for meanwhile in
   * one transaction (one sync to disk for all of them) and answers the key kept for each. Callers
   * (the personal-data layer) keep the keys they were given, so a subject asked for is mostly a
   * new one: looking it up here first would read through a page cache that each of the thread's
   * commits empties. Once the thread is gone, subjects with a key are still answered from here.
   */
  async keysFor(subjects: readonly string[]): Promise<Map<string, SubjectKey>> {
    if (this.closing) throw new Error('the key store is closed');
    const out = new Map<string, SubjectKey>();
    const missing = new Set<string>();
    const lookUp = this.thread?.broken === true;
    for (const subject of subjects) {
      if (out.has(subject) || missing.has(subject)) continue;
      const row = lookUp ? this.bySubject.get(subject) : undefined;
      if (row) out.set(subject, row);
      else missing.add(subject);
    }
    if (missing.size === 0) return out;
    const made = await new Promise<Map<string, SubjectKey>>((resolve, reject) => {
      this.batches.add({ subjects: missing, resolve, reject });
    });
    for (const subject of missing) out.set(subject, made.get(subject)!);
    return out;
  }

  /** Writes a key for every subject waiting, then answers each caller with the keys kept. */
  private async makeKeys(batch: Waiter[]): Promise<void> {
    const made = new Map<string, SubjectKey>();
    for (const { subjects } of batch) for (const subject of subjects) if (!made.has(subject)) made.set(subject, newKey());
    const rows = [...made].map(([subject, { id, key }]): KeyRow => [subject, id, key]);
    try {
      // A subject that had a key already keeps that one (from the thread, its bytes arrive as a Uint8Array).
      for (const [i, id, key] of await this.write(rows)) made.set(rows[i][0], { id, key: Buffer.from(key.buffer, key.byteOffset, key.byteLength) });
    } catch (error) {
      for (const waiter of batch) waiter.reject(error as Error);
      return;
    }
    for (const waiter of batch) waiter.resolve(made);
  }

  async keysById(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    for (const id of ids) {
      const row = this.byId.get(id);
      if (row) out.set(id, row.key);
    }
    return out;
  }

  async destroy(subjects: readonly string[]): Promise<number> {
    let destroyed = 0;
    this.db.transaction(() => {
      for (const subject of subjects) destroyed += this.remove.run(subject).changes;
    })();
    // The deleted rows' old pages live on in the WAL until it is checkpointed and cut.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return destroyed;
  }

  async secret(): Promise<Buffer> {
    this.db.prepare('INSERT OR IGNORE INTO key_store_meta (name, value) VALUES (?, ?)').run('secret', this.options.secret ?? randomBytes(32));
    return (this.db.prepare('SELECT value FROM key_store_meta WHERE name = ?').get('secret') as { value: Buffer }).value;
  }

  /** Keys still waiting or being written are made (or fail) first; then the thread and the file close. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.batches.drain();
      await this.thread?.close();
      if (this.db.open) this.db.close();
    })();
    return this.closing;
  }
}
