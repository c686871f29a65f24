/**
 * The embedded key store: a SQLite file of its own beside the log (`events.sqlite-keys`), so that
 * a copy of the log alone holds no key. `secure_delete` overwrites a destroyed key's bytes, and the
 * WAL is checkpointed and truncated after each destruction, so no file keeps them.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { KeyStore, SubjectKey } from './key-store.js';

/** Ids and keys are random: an id says nothing of its subject. */
export const newKey = (): SubjectKey => ({ id: randomBytes(16).toString('base64url'), key: randomBytes(32) });

export class SqliteKeyStore implements KeyStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, string, Buffer]>;
  private readonly bySubject: Database.Statement<[string], { id: string; key: Buffer }>;
  private readonly byId: Database.Statement<[string], { key: Buffer }>;
  private readonly remove: Database.Statement<[string]>;
  /** keysFor calls waiting for the next write of new keys. */
  private waiting: { subjects: string[]; resolve: () => void; reject: (error: Error) => void }[] = [];

  /** `secret`: the one to keep when the store has none yet (random otherwise). */
  constructor(
    readonly path: string,
    private readonly options: { secret?: Buffer } = {},
  ) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('secure_delete = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS subject_keys (subject TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, key BLOB NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS key_store_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
    `);
    this.insert = this.db.prepare('INSERT OR IGNORE INTO subject_keys (subject, id, key) VALUES (?, ?, ?)');
    this.bySubject = this.db.prepare('SELECT id, key FROM subject_keys WHERE subject = ?');
    this.byId = this.db.prepare('SELECT key FROM subject_keys WHERE id = ?');
    this.remove = this.db.prepare('DELETE FROM subject_keys WHERE subject = ?');
  }

  /**
   * Known subjects are answered at once; new ones wait for the next write, which makes the keys
   * asked for in one turn of the event loop in one transaction (one sync to disk for all of them).
   */
  async keysFor(subjects: readonly string[]): Promise<Map<string, SubjectKey>> {
    const out = new Map<string, SubjectKey>();
    const missing: string[] = [];
    for (const subject of subjects) {
      if (out.has(subject)) continue;
      const row = this.bySubject.get(subject);
      if (row) out.set(subject, row);
      else missing.push(subject);
    }
    if (missing.length === 0) return out;
    await new Promise<void>((resolve, reject) => {
      this.waiting.push({ subjects: missing, resolve, reject });
      if (this.waiting.length === 1) setImmediate(() => this.makeWaiting());
    });
    for (const subject of missing) out.set(subject, this.bySubject.get(subject)!);
    return out;
  }

  private makeWaiting(): void {
    const batch = this.waiting;
    this.waiting = [];
    try {
      this.db.transaction(() => {
        for (const { subjects } of batch) {
          for (const subject of subjects) {
            const made = newKey();
            this.insert.run(subject, made.id, made.key);
          }
        }
      })();
      for (const waiter of batch) waiter.resolve();
    } catch (error) {
      for (const waiter of batch) waiter.reject(error as Error);
    }
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

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
