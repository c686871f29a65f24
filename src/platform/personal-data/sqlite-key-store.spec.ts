/**
 * The embedded key store's writer thread (the contract, test/contract/key-store.contract.ts, holds
 * what every adapter does): new keys are committed off the main thread, a close waits for them, a
 * failed batch fails all its callers, and a thread that dies fails later callers instead of
 * leaving them waiting.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newKey, SqliteKeyStore } from './sqlite-key-store.js';

describe('SqliteKeyStore', () => {
  let dir: string;
  let path: string;
  const stores: SqliteKeyStore[] = [];
  const open = (file = path) => {
    const store = new SqliteKeyStore(file);
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-key-store-'));
    path = join(dir, 'events.sqlite-keys');
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits new keys off the main thread: it keeps running while the commit waits for the file', async () => {
    const store = open();
    // Another connection holds the write lock; the old way, the main thread waited for it in SQLite and never let it go.
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    let answered = false;
    const asked = store.keysFor(['new']).then((keys) => {
      answered = true;
      return keys;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    other.exec('COMMIT');
    other.close();
    expect((await asked).get('new')!.key).toHaveLength(32);
  });

  it('makes the keys being written, and those still waiting, before it closes', async () => {
    const store = open();
    const first = store.keysFor(['in-flight']);
    // The first batch is on the thread once the turn in which it was asked is over.
    await new Promise((resolve) => setImmediate(resolve));
    const second = store.keysFor(['waiting']);
    const closed = store.close();
    const [a, b] = await Promise.all([first, second]);
    await closed;
    await expect(store.keysFor(['after'])).rejects.toThrow('the key store is closed');
    const again = open();
    expect((await again.keysFor(['in-flight'])).get('in-flight')!.id).toBe(a.get('in-flight')!.id);
    expect((await again.keysFor(['waiting'])).get('waiting')!.id).toBe(b.get('waiting')!.id);
  });

  it('fails every caller of a batch that fails, and writes the next batch', async () => {
    const store = open();
    const other = new Database(path);
    other.exec("CREATE TRIGGER refuse BEFORE INSERT ON subject_keys BEGIN SELECT RAISE(ABORT, 'refused'); END");
    const asked = [store.keysFor(['a']), store.keysFor(['b', 'c'])];
    for (const answer of asked) await expect(answer).rejects.toMatchObject({ name: 'KeyWriteFailedError', message: expect.stringContaining('refused') });
    other.exec('DROP TRIGGER refuse');
    other.close();
    expect([...(await store.keysFor(['a', 'b'])).keys()]).toEqual(['a', 'b']);
  });

  it('fails new subjects with a clear error once its thread is gone, and still answers known ones', async () => {
    const store = open();
    const known = (await store.keysFor(['known'])).get('known')!;
    // The thread ends as a crash would end it.
    await (store as unknown as { thread: { worker: { terminate(): Promise<number> } } }).thread.worker.terminate();
    await expect(store.keysFor(['new'])).rejects.toThrow("could not make new subject keys: the key store's writer thread exited");
    expect((await store.keysFor(['known'])).get('known')!.id).toBe(known.id);
  });

  it('makes random ids and keys, each key in memory of its own (random bytes are drawn for many keys at once)', () => {
    const keys = Array.from({ length: 300 }, () => newKey());
    expect(new Set(keys.map((k) => k.id)).size).toBe(300);
    expect(new Set(keys.map((k) => k.key.toString('hex'))).size).toBe(300);
    expect(keys.every((k) => /^[A-Za-z0-9_-]{22}$/.test(k.id) && k.key.length === 32 && k.key.buffer.byteLength === 32)).toBe(true);
  });

  it("makes keys on the caller's thread when the file is in memory", async () => {
    const store = open(':memory:');
    expect((store as unknown as { thread: unknown }).thread).toBeUndefined();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => store.keysFor([`s-${i}`, 'shared'])));
    expect(new Set(answers.map((a, i) => a.get(`s-${i}`)!.id)).size).toBe(50);
    expect(new Set(answers.map((a) => a.get('shared')!.id)).size).toBe(1);
    const made = answers[3].get('s-3')!;
    expect((await store.keysById([made.id])).get(made.id)!.equals(made.key)).toBe(true);
  });
});
