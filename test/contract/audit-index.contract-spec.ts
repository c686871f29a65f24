import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditIndex } from '../../src/audit/audit-index.js';
import { auditProjections } from '../../src/audit/audit-index.projection.js';
import { ReadModelAuditIndex } from '../../src/audit/read-model-audit-index.js';
import { auditEventIndex, SqliteAuditIndex } from '../../src/audit/sqlite-audit-index.js';
import { ManualClock } from '../../src/platform/clock.js';
import { EventLogLossError, IndexableEvent, indexPathOf, SqliteEventIndex, SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store.js';
import { EventStore, WrongExpectedRevisionError } from '../../src/platform/event-store/event-store.js';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store.js';
import { replay } from '../../src/platform/projections/projection-runner.js';
import { MemoryReadStore } from '../../src/platform/read-store/memory-read-store.js';
import { MongoReadStore } from '../../src/platform/read-store/mongo-read-store.js';
import { ReadStore } from '../../src/platform/read-store/read-store.js';
import { auditIndexContract, AuditIndexHarness } from './audit-index.contract.js';

auditIndexContract("SQLite event index (embedded, in memory: written on the store's own connection)", async () => {
  const clock = new ManualClock();
  const events = new SqliteEventStore({ path: ':memory:', clock, index: auditEventIndex });
  return { index: new SqliteAuditIndex(events), events, clock, settle: async () => undefined, close: () => events.close() };
});

// As the service runs it: a file, its writer thread and the index's own thread. `settle` does
// nothing here either: a read must see every append answered before it.
auditIndexContract('SQLite event index (embedded, a file: written by its own thread)', async () => {
  const clock = new ManualClock();
  const dir = mkdtempSync(join(tmpdir(), 'audit-contract-'));
  const events = new SqliteEventStore({ path: join(dir, 'events.sqlite'), clock, index: auditEventIndex });
  return {
    index: new SqliteAuditIndex(events),
    events,
    clock,
    settle: async () => undefined,
    close: async () => {
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

/**
 * The projection adapter: the audit_index read model, fed by replay() from a log without an index
 * (SQLite by default; `log` makes another store recording with the clock given, EventStoreDB's).
 */
async function projected(readStore: ReadStore, log?: (clock: ManualClock) => Promise<EventStore>): Promise<AuditIndexHarness> {
  const clock = new ManualClock();
  const events = log ? await log(clock) : new SqliteEventStore({ path: ':memory:', clock });
  return {
    index: new ReadModelAuditIndex(readStore, events),
    events,
    clock,
    settle: async () => void (await replay(events, readStore, auditProjections)),
    close: async () => {
      await events.close();
      await readStore.close();
    },
  };
}

auditIndexContract('read model over the in-memory read store', () => projected(new MemoryReadStore()));

const eventStoreUrl = process.env.EVENTSTORE_URL;
if (eventStoreUrl) {
  // A namespace per test; the store records events at the manual clock's time (EventStoreDbOptions.clock).
  auditIndexContract('read model over the in-memory read store, the log on EventStoreDB', () =>
    projected(new MemoryReadStore(), (clock) =>
      EventStoreDbEventStore.connect(eventStoreUrl, { namespace: `contract-audit-${randomUUID().slice(0, 8)}-`, clock }),
    ),
  );
} else {
  describe('AuditIndex contract: the log on EventStoreDB', () => {
    it.skip('skipped: set EVENTSTORE_URL to run the contract with the log on EventStoreDB', () => undefined);
  });
}

const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  auditIndexContract('read model over MongoDB', async () =>
    projected(await MongoReadStore.connect(mongoUrl, `contract_audit_${randomUUID().slice(0, 8)}`, { dropOnClose: true })),
  );
} else {
  describe('AuditIndex contract: read model over MongoDB', () => {
    it.skip('skipped: set MONGO_URL to run the contract against MongoDB', () => undefined);
  });
}

describe('SQLite event index: a prefix of the log, caught up or rebuilt only when it must be', () => {
  let dir: string;
  let path: string;
  const page = (index: AuditIndex, merchantId: number, entity?: string) =>
    index.page({ merchantId, entity }, { limit: 100 }).then((entries) => entries.map((e) => e.type));
  /** The audit rules, counting the events they are asked about. */
  const counting = (base: SqliteEventIndex = auditEventIndex) => {
    const seen = { events: 0 };
    const index: SqliteEventIndex = {
      version: base.version,
      entriesOf: (event: IndexableEvent) => {
        seen.events += 1;
        return base.entriesOf(event);
      },
    };
    return { index, seen };
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-index-'));
    path = join(dir, 'events.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('indexes a database written before the index existed, once, when first opened with it', async () => {
    const before = new SqliteEventStore({ path });
    await before.append('merchant-1', [{ type: 'MerchantRegistered', data: { merchantId: 1 } }], 'no_stream');
    await before.append('customer-1-a', [{ type: 'CustomerRegistered', data: { customerId: 5, merchantId: 1 } }], 'no_stream');
    await before.append('system', [{ type: 'Housekeeping', data: {} }], 'no_stream');
    await before.close();

    const first = counting();
    const opened = new SqliteEventStore({ path, index: first.index });
    expect(opened.indexRebuild).toMatchObject({ reason: 'missing', events: 3, entries: 4 });
    expect(first.seen.events).toBe(3);
    const index = new SqliteAuditIndex(opened);
    expect(await page(index, 1)).toEqual(['MerchantRegistered', 'CustomerRegistered']);
    expect(await page(index, 1, 'customer:5')).toEqual(['CustomerRegistered']);
    // Written with the log from now on.
    await opened.append('customer-1-a', [{ type: 'CustomerUpdated', data: { customerId: 5, merchantId: 1 } }], 0);
    expect(first.seen.events).toBe(4);
    expect(await page(index, 1, 'customer:5')).toEqual(['CustomerRegistered', 'CustomerUpdated']);
    await opened.close();

    const again = counting();
    const reopened = new SqliteEventStore({ path, index: again.index });
    expect(reopened.indexRebuild).toBeUndefined();
    expect(again.seen.events).toBe(0);
    expect(await page(new SqliteAuditIndex(reopened), 1, 'customer:5')).toEqual(['CustomerRegistered', 'CustomerUpdated']);
    await reopened.close();
  });

  it('re-indexes every stored event when the rules change (a new entity kind), and keeps the new entries', async () => {
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    await store.append('order-9', [{ type: 'OrderPlaced', data: { orderId: 9, merchantId: 1 } }], 'no_stream');
    expect(await store.inIndex(1, 'order:9')).toBe(false);
    await store.close();

    const withOrders: SqliteEventIndex = {
      version: `${auditEventIndex.version}+orders`,
      entriesOf: (event) => {
        const entries = [...auditEventIndex.entriesOf(event)];
        const orderId = (event.data as { orderId?: number }).orderId;
        if (entries.length && orderId) entries.push({ merchantId: entries[0].merchantId, entity: `order:${orderId}` });
        return entries;
      },
    };
    const changed = new SqliteEventStore({ path, index: withOrders });
    expect(changed.indexRebuild).toMatchObject({ reason: 'version', events: 1, entries: 2 });
    expect(await changed.inIndex(1, 'order:9')).toBe(true);
    expect((await changed.readIndex({ merchantId: 1, entity: 'order:9', limit: 10 })).map((e) => e.type)).toEqual(['OrderPlaced']);
    await changed.close();

    // Back to the old rules: rebuilt again, the extra entries are gone.
    const back = new SqliteEventStore({ path, index: auditEventIndex });
    expect(back.indexRebuild).toMatchObject({ reason: 'version' });
    expect(await back.inIndex(1, 'order:9')).toBe(false);
    await back.close();
  });

  it('indexes what a writer without it has appended, from its watermark, and nothing after a reader', async () => {
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    await store.append('merchant-1', [{ type: 'MerchantRegistered', data: { merchantId: 1 } }], 'no_stream');
    await store.close();

    const reader = new SqliteEventStore({ path });
    expect(await reader.readAll()).toHaveLength(1);
    await reader.close();
    const afterReader = new SqliteEventStore({ path, index: auditEventIndex });
    expect(afterReader.indexRebuild).toBeUndefined();
    await afterReader.close();

    const writer = new SqliteEventStore({ path });
    await writer.append('merchant-1', [{ type: 'MerchantRenamed', data: { merchantId: 1 } }], 0);
    await writer.close();
    const afterWriter = new SqliteEventStore({ path, index: auditEventIndex });
    expect(afterWriter.indexRebuild).toMatchObject({ reason: 'behind', events: 1, entries: 2 });
    expect(await page(new SqliteAuditIndex(afterWriter), 1)).toEqual(['MerchantRegistered', 'MerchantRenamed']);
    await afterWriter.close();
  });

  it('sees what another process appends while it is open: indexed from the log by the next read or append', async () => {
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    const index = new SqliteAuditIndex(store);
    await store.append('merchant-1', [{ type: 'MerchantRegistered', data: { merchantId: 1 } }], 'no_stream');
    const other = new SqliteEventStore({ path });
    await other.append('customer-1-a', [{ type: 'CustomerRegistered', data: { customerId: 5, merchantId: 1 } }], 'no_stream');
    // A read indexes the other's event before it answers.
    expect(await page(index, 1, 'customer:5')).toEqual(['CustomerRegistered']);
    await other.append('customer-1-b', [{ type: 'CustomerRegistered', data: { customerId: 6, merchantId: 1 } }], 'no_stream');
    // An append after another process's indexes that one with its own.
    await store.append('customer-1-c', [{ type: 'CustomerRegistered', data: { customerId: 7, merchantId: 1 } }], 'no_stream');
    await other.close();
    await store.close();
    const reopened = new SqliteEventStore({ path, index: auditEventIndex });
    expect(reopened.indexRebuild).toBeUndefined();
    expect(await page(new SqliteAuditIndex(reopened), 1)).toEqual(['MerchantRegistered', 'CustomerRegistered', 'CustomerRegistered', 'CustomerRegistered']);
    expect(await reopened.inIndex(1, 'customer:6')).toBe(true);
    await reopened.close();
  });

  it('lives in a file of its own, and indexes the events after its watermark at open (what a crash left out)', async () => {
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    for (let i = 1; i <= 4; i += 1)
      await store.append(`customer-1-${i}`, [{ type: 'CustomerRegistered', data: { customerId: i, merchantId: 1 } }], 'no_stream');
    await store.close();
    expect(existsSync(indexPathOf(path))).toBe(true);
    // What a process killed before its index thread committed leaves: the newest rows missing, the watermark before them.
    const log = new Database(path, { readonly: true });
    const second = log.prepare('SELECT id FROM events WHERE position = 2').pluck().get();
    log.close();
    const file = new Database(indexPathOf(path));
    file.prepare('DELETE FROM event_index WHERE position > 2').run();
    file.prepare("UPDATE event_index_meta SET position = 2, event_id = ? WHERE name = 'event_index'").run(second);
    file.close();

    const first = counting();
    const reopened = new SqliteEventStore({ path, index: first.index });
    expect(reopened.indexRebuild).toMatchObject({ reason: 'behind', events: 2, entries: 4 });
    expect(first.seen.events).toBe(2);
    expect(await page(new SqliteAuditIndex(reopened), 1)).toHaveLength(4);
    expect(await reopened.inIndex(1, 'customer:4')).toBe(true);
    await reopened.close();
  });

  it('refuses a log that lost events its index recorded (an older copy put back), naming the positions; accepted, keeps the old index aside and rebuilds', async () => {
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    await store.append('customer-1-1', [{ type: 'CustomerRegistered', data: { customerId: 1, merchantId: 1 } }], 'no_stream');
    await store.close();
    copyFileSync(path, join(dir, 'copy.sqlite'));
    const later = new SqliteEventStore({ path, index: auditEventIndex });
    await later.append('customer-1-2', [{ type: 'CustomerRegistered', data: { customerId: 2, merchantId: 1 } }], 'no_stream');
    const {
      events: [third],
    } = await later.append('customer-1-3', [{ type: 'CustomerRegistered', data: { customerId: 3, merchantId: 1 } }], 'no_stream');
    await later.close();

    // The older log comes back, with the newer index beside it: its watermark is past the log's head.
    copyFileSync(join(dir, 'copy.sqlite'), path);
    let refused: unknown;
    try {
      new SqliteEventStore({ path, index: auditEventIndex });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(EventLogLossError);
    expect((refused as EventLogLossError).loss).toEqual({ indexPath: indexPathOf(path), indexedThrough: 3, indexedEventId: third.id, head: 1 });
    expect((refused as Error).message).toContain('the log ends at position 1: positions 2 to 3 are gone');
    // Refused before anything changed: the index still says what was lost, and nothing was moved.
    expect(readdirSync(dir).filter((name) => name.includes('.lost-'))).toEqual([]);

    const accepted = new SqliteEventStore({
      path,
      index: auditEventIndex,
      acceptEventLoss: true,
      clock: new ManualClock(new Date('2026-12-01T10:00:00.000Z')),
    });
    const movedTo = `${indexPathOf(path)}.lost-2026-12-01T10-00-00-000Z`;
    expect(accepted.indexRebuild).toMatchObject({ reason: 'lost', events: 1, lost: { indexedThrough: 3, head: 1, movedTo } });
    expect(await accepted.inIndex(1, 'customer:2')).toBe(false);
    expect(await accepted.inIndex(1, 'customer:1')).toBe(true);
    // Then other events take the positions the lost ones had: the watermark's event is another one.
    await accepted.append('customer-1-4', [{ type: 'CustomerRegistered', data: { customerId: 4, merchantId: 1 } }], 'no_stream');
    await accepted.close();
    const kept = new Database(movedTo, { readonly: true });
    expect(kept.prepare("SELECT position, event_id FROM event_index_meta WHERE name = 'event_index'").get()).toEqual({ position: 3, event_id: third.id });
    kept.close();

    copyFileSync(movedTo, indexPathOf(path));
    for (const suffix of ['-wal', '-shm']) rmSync(indexPathOf(path) + suffix, { force: true });
    const other = new SqliteEventStore({ path });
    await other.append('customer-1-5', [{ type: 'CustomerRegistered', data: { customerId: 5, merchantId: 1 } }], 'no_stream');
    await other.close();
    expect(() => new SqliteEventStore({ path, index: auditEventIndex })).toThrow('the log holds another event at position 3');
  });

  it("rebuilds, without complaint, an index that is not its log's but whose events the log holds (the log renumbered)", async () => {
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    await store.append('customer-1-1', [{ type: 'CustomerRegistered', data: { customerId: 1, merchantId: 1 } }], 'no_stream');
    await store.append('customer-1-2', [{ type: 'CustomerRegistered', data: { customerId: 2, merchantId: 1 } }], 'no_stream');
    await store.close();
    // The same events at other positions, as a tool copying the log into a new file could leave them.
    const log = new Database(path);
    log.prepare('UPDATE events SET position = position + 10').run();
    log.close();

    const renumbered = new SqliteEventStore({ path, index: auditEventIndex });
    expect(renumbered.indexRebuild).toMatchObject({ reason: 'mismatch', events: 2 });
    expect(await renumbered.inIndex(1, 'customer:2')).toBe(true);
    await renumbered.close();
    expect(readdirSync(dir).filter((name) => name.includes('.lost-'))).toEqual([]);
  });

  it("waits for the index's thread: a read right after an answered append sees it while the index file is locked", async () => {
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    await store.append('merchant-1', [{ type: 'MerchantRegistered', data: { merchantId: 1 } }], 'no_stream');
    const other = new Database(indexPathOf(path));
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => other.exec('COMMIT'), 300);
    await store.append('customer-1-a', [{ type: 'CustomerRegistered', data: { customerId: 5, merchantId: 1 } }], 'no_stream');
    expect(await page(new SqliteAuditIndex(store), 1)).toEqual(['MerchantRegistered', 'CustomerRegistered']);
    other.close();
    await store.close();
  });

  it('recovers from a batch it could not write: the reads waiting fail, later reads index again from the log', async () => {
    const store = new SqliteEventStore({ path, index: auditEventIndex, indexBusyTimeoutMs: 50 });
    const index = new SqliteAuditIndex(store);
    await store.append('merchant-1', [{ type: 'MerchantRegistered', data: { merchantId: 1 } }], 'no_stream');
    const other = new Database(indexPathOf(path));
    other.exec('BEGIN IMMEDIATE');
    // The log takes the append; its index rows wait for the lock, longer than the index may wait.
    await store.append('customer-1-a', [{ type: 'CustomerRegistered', data: { customerId: 5, merchantId: 1 } }], 'no_stream');
    await expect(page(index, 1)).rejects.toThrow(/locked/);
    other.exec('COMMIT');
    other.close();
    expect(await page(index, 1)).toEqual(['MerchantRegistered', 'CustomerRegistered']);
    await store.append('customer-1-b', [{ type: 'CustomerRegistered', data: { customerId: 6, merchantId: 1 } }], 'no_stream');
    expect(await index.exists(1, 'customer:6')).toBe(true);
    await store.close();
  });

  it("leaves an index kept inside the log's file (before it had one of its own) to earlier releases, marked for rebuilding", async () => {
    const before = new SqliteEventStore({ path });
    await before.append('customer-1-1', [{ type: 'CustomerRegistered', data: { customerId: 1, merchantId: 1 } }], 'no_stream');
    await before.close();
    const log = new Database(path);
    log.exec(`CREATE TABLE event_index (merchant_id INTEGER NOT NULL, entity TEXT NOT NULL, created_at TEXT NOT NULL, position INTEGER NOT NULL, type TEXT NOT NULL,
      PRIMARY KEY (merchant_id, entity, created_at, position)) WITHOUT ROWID;
      CREATE TABLE event_index_meta (name TEXT PRIMARY KEY, version TEXT NOT NULL);`);
    log.prepare("INSERT INTO event_index_meta (name, version) VALUES ('event_index', '1:audit-old')").run();

    log.close();
    const opened = new SqliteEventStore({ path, index: auditEventIndex });
    expect(opened.indexRebuild).toMatchObject({ reason: 'missing', events: 1 });
    expect(await opened.inIndex(1, 'customer:1')).toBe(true);
    await opened.close();
    // An earlier release still running keeps its tables; one opening the file again sees no version and rebuilds them.
    const tables = new Database(path, { readonly: true });
    expect(tables.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'event_index%' ORDER BY name").pluck().all()).toEqual([
      'event_index',
      'event_index_meta',
    ]);
    expect(tables.prepare('SELECT COUNT(*) FROM event_index_meta').pluck().get()).toBe(0);
    tables.close();
  });

  it('indexes only what was written: a refused append leaves no entries, its neighbours keep theirs', async () => {
    const store = new SqliteEventStore({ path: ':memory:', index: auditEventIndex });
    const index = new SqliteAuditIndex(store);
    await store.append('customer-1-a', [{ type: 'CustomerRegistered', data: { customerId: 5, merchantId: 1 } }], 'no_stream');
    const outcomes = await Promise.allSettled([
      store.append('customer-1-b', [{ type: 'CustomerRegistered', data: { customerId: 6, merchantId: 1 } }], 'no_stream'),
      store.append('customer-1-a', [{ type: 'CustomerRegistered', data: { customerId: 7, merchantId: 1 } }], 'no_stream'),
      store.append('customer-1-c', [{ type: 'CustomerRegistered', data: { customerId: 8, merchantId: 1 } }], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await index.exists(1, 'customer:7')).toBe(false);
    expect(await index.exists(1, 'customer:6')).toBe(true);
    expect(await index.exists(1, 'customer:8')).toBe(true);
    expect(await page(index, 1)).toHaveLength(3);
    await store.close();
  });

  it('refuses the append when its entries cannot be computed: the log and the index never disagree', async () => {
    const failing: SqliteEventIndex = {
      version: 'failing',
      entriesOf: (event) => {
        if (event.type === 'Poison') throw new Error('cannot index');
        return auditEventIndex.entriesOf(event);
      },
    };
    const store = new SqliteEventStore({ path: ':memory:', index: failing });
    await expect(
      store.append(
        's',
        [
          { type: 'Fine', data: { merchantId: 1 } },
          { type: 'Poison', data: { merchantId: 1 } },
        ],
        'no_stream',
      ),
    ).rejects.toThrow('cannot index');
    expect(await store.readAll()).toEqual([]);
    expect(await store.inIndex(1, '*')).toBe(false);
    await store.close();
  });

  it('is not available on a store opened without it', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    await expect(store.readIndex({ merchantId: 1, entity: '*', limit: 1 })).rejects.toThrow(/keeps no event index/);
    expect(() => new SqliteAuditIndex(store)).toThrow(/not opened with the audit index/);
    await store.close();
  });
});
