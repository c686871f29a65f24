/**
 * Embedded mode: one process per DATA_DIR. The holder keeps `DATA_DIR/instance.lock`, a SQLite
 * file, locked (locking_mode=EXCLUSIVE after a write): SQLite's fcntl locks die with the process,
 * so a crash or SIGKILL never leaves the directory held, and SQLite also refuses a second
 * connection of the same process. Nothing else may open that file: closing any handle to it in
 * this process would drop the lock. `DATA_DIR/instance.json` names the holder for the refusal.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeHolder, InstanceIdentity, NOT_SUPPORTED_YET, StorageInUseError } from './instance-identity.js';

export const LOCK_FILE = 'instance.lock';
export const HOLDER_FILE = 'instance.json';

export class DataDirLock {
  private released = false;

  private constructor(
    private readonly db: Database.Database,
    private readonly dataDir: string,
    private readonly holder: InstanceIdentity,
  ) {}

  /** Locks `dataDir` for `holder`, or throws StorageInUseError naming the process that has it. */
  static acquire(dataDir: string, holder: InstanceIdentity): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, LOCK_FILE);
    // timeout 0: a held lock is an answer, not something to wait for.
    const db = new Database(path, { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = MEMORY');
      db.exec('BEGIN EXCLUSIVE');
      db.exec('CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), instance_id TEXT NOT NULL)');
      // The first write takes the exclusive lock that EXCLUSIVE mode then keeps until close.
      db.prepare('INSERT OR REPLACE INTO holder (id, instance_id) VALUES (1, ?)').run(holder.instanceId);
      db.exec('COMMIT');
    } catch (error) {
      db.close();
      if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) {
        throw new StorageInUseError(
          `refusing to start: ${describeHolder(readHolder(dataDir))} holds DATA_DIR ${dataDir} (lock ${path}); stop it first: ${NOT_SUPPORTED_YET}`,
        );
      }
      throw new Error(`cannot lock DATA_DIR ${dataDir} through ${path}: ${(error as Error).message}`, { cause: error });
    }
    const lock = new DataDirLock(db, dataDir, holder);
    lock.record();
    return lock;
  }

  /** Adds the port to the holder record once the server listens. */
  listening(port: number): void {
    if (this.released) return;
    this.holder.port = port;
    this.record();
  }

  /** Removes the holder record (if still this instance's) and lets the lock go. */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      if (readHolder(this.dataDir)?.instanceId === this.holder.instanceId) rmSync(join(this.dataDir, HOLDER_FILE), { force: true });
    } finally {
      this.db.close();
    }
  }

  private record(): void {
    const file = join(this.dataDir, HOLDER_FILE);
    const temporary = `${file}.${process.pid}.tmp`;
    const { instanceId, pid, host, port, startedAt } = this.holder;
    writeFileSync(temporary, `${JSON.stringify({ instance_id: instanceId, pid, host, port: port ?? null, started_at: startedAt.toISOString() })}\n`);
    // Renamed into place: a reader never sees half a record.
    renameSync(temporary, file);
  }
}

/** The holder record, or undefined when it is missing or not one this service wrote. */
export function readHolder(dataDir: string): InstanceIdentity | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dataDir, HOLDER_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  const record = parsed as { instance_id?: unknown; pid?: unknown; host?: unknown; port?: unknown; started_at?: unknown };
  if (typeof record.instance_id !== 'string' || typeof record.pid !== 'number' || typeof record.host !== 'string' || typeof record.started_at !== 'string')
    return undefined;
  const startedAt = new Date(record.started_at);
  if (Number.isNaN(startedAt.getTime())) return undefined;
  return { instanceId: record.instance_id, pid: record.pid, host: record.host, port: typeof record.port === 'number' ? record.port : undefined, startedAt };
}
