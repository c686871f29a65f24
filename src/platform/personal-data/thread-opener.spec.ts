/**
 * The reader thread's opener, run here on this thread: a text of sealed events comes out as the
 * layer's own reads give them, whether it reads the key store whole or key by key, and it forgets
 * what it opened when the erasure count changes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { customerSubject, emailSubject, PersonalDataMap } from './personal-fields.js';
import { PersonalDataEventStore } from './personal-data-event-store.js';
import { SqliteKeyStore } from './sqlite-key-store.js';
import { threadOpener } from './thread-opener.js';

const personal: PersonalDataMap = {
  Bought: (data: { merchantId: number; email: string; ip: string; advocate: number; advocateEmail: string }) => [
    { path: ['email'], subjects: emailSubject(data.merchantId, data.email) },
    { path: ['ip'], subjects: emailSubject(data.merchantId, data.email) },
    { path: ['advocateEmail'], subjects: [...customerSubject(data.merchantId, data.advocate), ...emailSubject(data.merchantId, data.advocateEmail)] },
  ],
};

describe('the reader thread opener', () => {
  let dir: string;
  let store: PersonalDataEventStore;
  let keys: SqliteKeyStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'referral-opener-'));
    keys = new SqliteKeyStore(join(dir, 'events.sqlite-keys'));
    store = await PersonalDataEventStore.open(new SqliteEventStore({ path: join(dir, 'events.sqlite') }), keys, personal);
    for (let i = 0; i < 6; i += 1) {
      const data = { merchantId: 1, email: `friend${i}@example.com`, ip: `203.0.113.${i}`, advocate: 7, advocateEmail: 'ada@example.com', n: i };
      await store.append(`bought-${i}`, [{ type: 'Bought', data }], 'no_stream');
    }
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The opener made as the thread makes it, over a text of the stored events. */
  const opener = (erasures: Int32Array, readWhole: number) => {
    const transform = threadOpener(keys.path, erasures, { keep: 3, readWhole });
    return (0, eval)(`(${transform.source})`)(transform.data, createRequire(import.meta.url)) as (text: string) => string;
  };
  const raw = async () => JSON.stringify((await store.inner.readAll()).map((event) => event.data));
  const opened = async () => (await store.readAll()).map((event) => event.data);
  const unmarked = (text: string) => (JSON.parse(text) as Record<string, unknown>[]).map(({ $pd: _mark, ...rest }) => rest);

  it.each([
    ['reading the key store whole', 1000],
    ['looking each key up', 0],
  ])('opens every value as the layer does, %s', async (_how, readWhole) => {
    const open = opener(new Int32Array(new SharedArrayBuffer(4)), readWhole);
    const text = await raw();
    expect(text).not.toContain('friend1@example.com');
    expect(unmarked(open(text))).toEqual(await opened());
    // Again: from what it kept (three of each at most), the same.
    expect(unmarked(open(text))).toEqual(await opened());
  });

  it('reads null for the values of an erased subject once the erasure count moves, and keeps the others', async () => {
    const erasures = new Int32Array(new SharedArrayBuffer(4));
    const open = opener(erasures, 1000);
    const text = await raw();
    expect(open(text)).toContain('friend2@example.com');
    await keys.destroy([store.subjectId({ kind: 'email', merchantId: 1, email: 'friend2@example.com' })]);
    Atomics.add(erasures, 0, 1);
    const after = unmarked(open(text));
    expect(after[2]).toMatchObject({ email: null, ip: null, advocateEmail: 'ada@example.com' });
    expect(after[3]).toMatchObject({ email: 'friend3@example.com', ip: '203.0.113.3' });
  });
});
