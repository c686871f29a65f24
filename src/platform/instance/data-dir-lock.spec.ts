import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLock, HOLDER_FILE, readHolder } from './data-dir-lock.js';
import { StorageInUseError, thisInstance } from './instance-identity.js';

describe('DataDirLock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const refusal = (holderDir: string): Error => {
    try {
      DataDirLock.acquire(holderDir, thisInstance(new Date())).release();
    } catch (error) {
      return error as Error;
    }
    throw new Error('the second lock was granted');
  };

  it('refuses a second holder in the same process, naming the first (pid, host, port, start), until the first lets go', () => {
    const first = DataDirLock.acquire(dir, thisInstance(new Date('2026-11-28T10:00:00.000Z')));
    first.listening(4321);
    const error = refusal(dir);
    expect(error).toBeInstanceOf(StorageInUseError);
    expect(error.message).toBe(
      `refusing to start: another app in this process (pid ${process.pid} on host ${hostname()}, listening on :4321, since 2026-11-28T10:00:00.000Z) ` +
        `holds DATA_DIR ${dir} (lock ${join(dir, 'instance.lock')}); stop it first: several processes on one store are not supported yet`,
    );
    // The refused attempt closed its own handle on the lock file: the first still holds it.
    expect(refusal(dir)).toBeInstanceOf(StorageInUseError);
    first.release();
    const next = DataDirLock.acquire(dir, thisInstance(new Date()));
    next.release();
  });

  it('records its holder in instance.json while held, and removes the record on release', () => {
    const me = thisInstance(new Date('2026-11-28T10:00:00.000Z'));
    const lock = DataDirLock.acquire(dir, me);
    expect(readHolder(dir)).toEqual({ instanceId: me.instanceId, pid: process.pid, host: hostname(), port: undefined, startedAt: me.startedAt });
    lock.listening(8080);
    expect(JSON.parse(readFileSync(join(dir, HOLDER_FILE), 'utf8'))).toMatchObject({ pid: process.pid, port: 8080, started_at: '2026-11-28T10:00:00.000Z' });
    lock.release();
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(false);
    lock.release();
  });

  it('is not held by a record a dead holder left behind, and the refusal says so when the record is missing or unreadable', () => {
    writeFileSync(
      join(dir, HOLDER_FILE),
      JSON.stringify({ instance_id: 'gone', pid: 1, host: 'old-host', port: 3000, started_at: '2026-01-01T00:00:00.000Z' }),
    );
    const lock = DataDirLock.acquire(dir, thisInstance(new Date()));
    expect(readHolder(dir)?.pid).toBe(process.pid);
    // Same pid and host, yet not an app of this process (containers each start as pid 1): another process.
    writeFileSync(
      join(dir, HOLDER_FILE),
      JSON.stringify({ instance_id: 'other-container', pid: process.pid, host: hostname(), port: 3000, started_at: '2026-01-01T00:00:00.000Z' }),
    );
    expect(refusal(dir).message).toContain(
      `refusing to start: another process (pid ${process.pid} on host ${hostname()}, listening on :3000, since 2026-01-01T00:00:00.000Z) holds DATA_DIR`,
    );
    writeFileSync(join(dir, HOLDER_FILE), '{not json');
    expect(refusal(dir).message).toMatch(/^refusing to start: another process \(which one is not recorded\) holds DATA_DIR /);
    lock.release();
  });

  it('makes a DATA_DIR that does not exist yet', () => {
    const nested = join(dir, 'a', 'b');
    const lock = DataDirLock.acquire(nested, thisInstance(new Date()));
    expect(existsSync(join(nested, 'instance.lock'))).toBe(true);
    lock.release();
  });
});
