import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesContaining } from '../../test/support/bytes-on-disk.js';
import { auditEventIndex } from '../audit/index.js';
import { optOutStream } from '../email-opt-outs/index.js';
import { systemClock } from '../platform/clock.js';
import { Config, loadConfig } from '../platform/config.js';
import { NewEvent } from '../platform/event-store/event-store.js';
import { SqliteEventStore } from '../platform/event-store/sqlite-event-store.js';
import { allOf, customerSubject, emailSubject, fieldsOf, PersonalDataMap, SqliteKeyStore } from '../platform/personal-data/index.js';
import { personalLinkClaimStream } from '../referral-links/index.js';
import { advocateLedgerStream } from '../sales/index.js';
import { migratePersonalData, PERSONAL_DATA_SEALED } from './personal-data-migration.js';
import { createServiceEventStore } from './service-storage.js';

type Data = Record<string, unknown>;

/** The declarations of the event types written here (the service's own are filled elsewhere). */
const personal: PersonalDataMap = {
  CustomerRegistered: (d: Data & { merchantId: number; customerId: number }) =>
    allOf(
      fieldsOf(d, ['email', 'firstName', 'lastName'], emailSubject(d.merchantId, d.email)),
      fieldsOf(d, ['ipAddress'], customerSubject(d.merchantId, d.customerId)),
    ),
  EmailOptedOut: (d: Data & { merchantId: number }) => fieldsOf(d, ['emailAddress'], emailSubject(d.merchantId, d.emailAddress)),
};

const ann = 'Ann.Lee@example.com';
const bob = 'bob.stone@example.org';
const carol = 'carol.king@example.net';
const b64 = (text: string) => Buffer.from(text).toString('base64url');
/** Everything personal the old log holds: addresses (as given and as named in streams), names, an IP. */
const needles = [ann, ann.toLowerCase(), bob, carol, ` ${carol}`, 'Annabel', 'Leeworth', '203.0.113.77'];
const at = '2026-05-01T00:00:00.000Z';

/** An `open` for the migration that counts its calls and opens nothing. */
function unopened(): { calls: number; open: () => Promise<never> } {
  const spy = { calls: 0, open: () => ((spy.calls += 1), Promise.reject(new Error('opened'))) };
  return spy;
}

const registered = { merchantId: 1, customerId: 5, email: ann, firstName: 'Annabel', lastName: 'Leeworth', ipAddress: '203.0.113.77', registeredAt: at };
const optedOut = { merchantId: 1, emailAddress: bob, jobId: null, optedOutAt: at };
const counted = (rewardId: number) => ({ merchantId: 1, widgetId: 3, rewardId, amount: 10, countedAt: at });

/** The old log: plaintext values, streams named after addresses (two ledger names of one address, as spaces around it once made). */
const oldLog: { stream: string; events: NewEvent[] }[] = [
  { stream: 'widget-3', events: [{ type: 'WidgetCreated', data: { merchantId: 1, widgetId: 3, name: 'Spring' } }] },
  { stream: 'customer-1-5', events: [{ type: 'CustomerRegistered', data: registered }] },
  { stream: `email-opt-out-1-${b64(bob)}`, events: [{ type: 'EmailOptedOut', data: optedOut }] },
  {
    stream: `personal-link-1-3-e${b64(carol)}`,
    events: [{ type: 'PersonalLinkClaimed', data: { merchantId: 1, widgetId: 3, code: 'abcd2345', claimedAt: at } }],
  },
  { stream: `advocate-rewards-1-3-e${b64(carol)}`, events: [{ type: 'AdvocateRewardCounted', data: counted(1) }] },
  { stream: `advocate-rewards-1-3-e${b64(` ${carol}`)}`, events: [{ type: 'AdvocateRewardCounted', data: counted(2) }] },
  { stream: `advocate-rewards-1-3-e${b64(carol)}`, events: [{ type: 'AdvocateRewardCounted', data: counted(3) }] },
  { stream: 'advocate-rewards-1-3-c7', events: [{ type: 'AdvocateRewardCounted', data: counted(4) }] },
];

describe('personal-data migration of an embedded log written before sealing', () => {
  let dir: string;
  let config: Config;
  let path: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pd-migrate-'));
    config = { ...loadConfig({}), dataDir: dir };
    path = join(dir, 'events.sqlite');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes the old log as the service did before: the plain adapter, with its audit index beside it. */
  async function writeOldLog(): Promise<void> {
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    for (const { stream, events } of oldLog) await store.append(stream, events, 'any');
    await store.close();
  }

  const rows = () => {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare('SELECT position, stream, revision, type, data FROM events ORDER BY position').all() as {
        position: number;
        stream: string;
        revision: number;
        type: string;
        data: string;
      }[];
    } finally {
      db.close();
    }
  };

  const marker = () => {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare("SELECT value FROM log_meta WHERE name = 'personal_data'").pluck().get();
    } finally {
      db.close();
    }
  };

  it('seals every personal value and renames the address streams, through the service store; the files keep none of them; a second start does nothing', async () => {
    await writeOldLog();
    expect(filesContaining(dir, needles).length).toBeGreaterThan(0);
    const before = rows();

    const store = await createServiceEventStore(config, systemClock, undefined, personal);
    const ledger = advocateLedgerStream(1, 3, { customerId: null, emailKey: store.emailKey(1, carol) });
    try {
      // The same data read back, every event, in order.
      const all = await store.readAll({ maxCount: 100 });
      expect(all.map((e) => e.data)).toEqual(oldLog.flatMap(({ events }) => events.map((e) => e.data)));
      // New names; the three events of the one address in one ledger, numbered in log order.
      expect(await store.readStream(optOutStream(1, store.emailKey(1, bob)))).toEqual([expect.objectContaining({ data: optedOut, revision: 0 })]);
      expect((await store.readStream(personalLinkClaimStream(1, 3, { emailKey: store.emailKey(1, carol) }))).map((e) => (e.data as Data).code)).toEqual([
        'abcd2345',
      ]);
      expect((await store.readStream(ledger)).map((e) => [e.revision, (e.data as Data).rewardId])).toEqual([
        [0, 1],
        [1, 2],
        [2, 3],
      ]);
      // The event index was built again from the rewritten log.
      expect(store.indexRebuild?.reason).toBe('missing');
    } finally {
      await store.close();
    }

    const after = rows();
    expect(after.map((r) => r.stream)).toEqual([
      'widget-3',
      'customer-1-5',
      expect.stringMatching(/^email-opt-out-1-k[A-Za-z0-9_-]{43}$/),
      expect.stringMatching(/^personal-link-1-3-k[A-Za-z0-9_-]{43}$/),
      ledger,
      ledger,
      ledger,
      'advocate-rewards-1-3-c7',
    ]);
    // Only the events with declared values were rewritten.
    expect(after.filter((r, i) => r.data !== before[i].data).map((r) => r.type)).toEqual(['CustomerRegistered', 'EmailOptedOut']);
    expect(JSON.parse(after[1].data)).toMatchObject({ $pd: 1, customerId: 5, email: { $pd: expect.any(String) }, ipAddress: { $pd: expect.any(String) } });
    expect(marker()).toBe(PERSONAL_DATA_SEALED);
    expect(existsSync(`${path}-index`)).toBe(true);
    expect(filesContaining(dir, needles)).toEqual([]);

    // A second start: nothing to do, the stores are not even opened for it.
    const spy = unopened();
    expect(await migratePersonalData(path, personal, spy.open)).toBeUndefined();
    expect(spy.calls).toBe(0);
    const again = await createServiceEventStore(config, systemClock, undefined, personal);
    await again.close();
    expect(rows()).toEqual(after);
  });

  it('after the migration, erasing a subject leaves null where its values were', async () => {
    await writeOldLog();
    const store = await createServiceEventStore(config, systemClock, undefined, personal);
    try {
      expect(await store.erase([{ kind: 'email', merchantId: 1, email: ann }])).toBe(1);
      const [customer] = await store.readStream('customer-1-5');
      // The IP is the customer's, not the address's: it stays.
      expect(customer.data).toEqual({ ...registered, email: null, firstName: null, lastName: null });
      expect((await store.readStream(optOutStream(1, store.emailKey(1, bob))))[0].data).toEqual(optedOut);
    } finally {
      await store.close();
    }
  });

  it('logs one line with the counts, and rewrites nothing when sealing fails midway (one transaction)', async () => {
    await writeOldLog();
    const before = rows();
    const failing: PersonalDataMap = {
      ...personal,
      EmailOptedOut: () => {
        throw new Error('declaration failed');
      },
    };
    const open = async () => ({ log: new SqliteEventStore({ path, writerThread: false }), keys: new SqliteKeyStore(`${path}-keys`) });
    await expect(migratePersonalData(path, failing, open, () => undefined)).rejects.toThrow('declaration failed');
    expect(rows()).toEqual(before);
    expect(marker()).toBeUndefined();

    const lines: string[] = [];
    const report = await migratePersonalData(path, personal, open, (line) => lines.push(line));
    expect(report).toMatchObject({ events: 8, sealed: 2, streams: 4 });
    expect(lines).toEqual([expect.stringMatching(/^personal data of the event log sealed .*: 2 of 8 events rewritten, 4 streams renamed, in [0-9.]+ s$/)]);
    expect(filesContaining(dir, needles)).toEqual([]);
  });

  it('marks a new log at once, without opening it for a rewrite', async () => {
    const spy = unopened();
    expect(await migratePersonalData(path, personal, spy.open)).toBeUndefined();
    expect(spy.calls).toBe(0);
    expect(marker()).toBe(PERSONAL_DATA_SEALED);
    // Events appended from then on are sealed by the layer, never rewritten.
    const store = await createServiceEventStore(config, systemClock, undefined, personal);
    await store.append('customer-1-5', [{ type: 'CustomerRegistered', data: registered }], 'no_stream');
    await store.close();
    expect(await migratePersonalData(path, personal, spy.open)).toBeUndefined();
    expect(spy.calls).toBe(0);
    expect(filesContaining(dir, needles)).toEqual([]);
  });

  it('finishes a compaction a crash interrupted after the rewrite committed: the index beside the log goes, without a second rewrite', async () => {
    await writeOldLog();
    await migratePersonalData(
      path,
      personal,
      async () => ({ log: new SqliteEventStore({ path, writerThread: false }), keys: new SqliteKeyStore(`${path}-keys`) }),
      () => undefined,
    );
    const after = rows();
    // As a crash right after the commit leaves it: compaction pending, the old index still there.
    const db = new Database(path);
    db.prepare("INSERT INTO log_meta (name, value) VALUES ('compaction', 'pending')").run();
    db.close();
    writeOldIndexHolding(`${path}-index`, ann);
    expect(filesContaining(dir, [ann])).toEqual([`${path}-index: ${ann} (utf8)`]);

    const spy = unopened();
    expect(await migratePersonalData(path, personal, spy.open)).toBeUndefined();
    expect(spy.calls).toBe(0);
    expect(existsSync(`${path}-index`)).toBe(false);
    expect(filesContaining(dir, needles)).toEqual([]);
    expect(rows()).toEqual(after);
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT value FROM log_meta WHERE name = 'compaction'").get()).toBeUndefined();
    check.close();
  });
});

function writeOldIndexHolding(file: string, text: string): void {
  const db = new Database(file);
  db.exec('CREATE TABLE t (v TEXT)');
  db.prepare('INSERT INTO t (v) VALUES (?)').run(text);
  db.close();
}
