import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditIndex } from '../../src/audit/audit-index.js';
import { auditProjections } from '../../src/audit/audit-index.projection.js';
import { ReadModelAuditIndex } from '../../src/audit/read-model-audit-index.js';
import { auditEventIndex, SqliteAuditIndex } from '../../src/audit/sqlite-audit-index.js';
import { ManualClock } from '../../src/platform/clock.js';
import { IndexableEvent, SqliteEventIndex, SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store.js';
import { WrongExpectedRevisionError } from '../../src/platform/event-store/event-store.js';
import { replay } from '../../src/platform/projections/projection-runner.js';
import { MemoryReadStore } from '../../src/platform/read-store/memory-read-store.js';
import { MongoReadStore } from '../../src/platform/read-store/mongo-read-store.js';
import { ReadStore } from '../../src/platform/read-store/read-store.js';
import { auditIndexContract, AuditIndexHarness } from './audit-index.contract.js';

auditIndexContract('SQLite event index (embedded)', async () => {
  const clock = new ManualClock();
  const events = new SqliteEventStore({ path: ':memory:', clock, index: auditEventIndex });
  return { index: new SqliteAuditIndex(events), events, clock, settle: async () => undefined, close: () => events.close() };
});

/** The projection adapter: the audit_index read model, fed by replay() from a SQLite log without an index. */
async function projected(readStore: ReadStore): Promise<AuditIndexHarness> {
  const clock = new ManualClock();
  const events = new SqliteEventStore({ path: ':memory:', clock });
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

describe('SQLite event index: written with the log, rebuilt only when it must be', () => {
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

  it('rebuilds an index that a writer without it has appended past, and not one it only read', async () => {
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
    expect(afterWriter.indexRebuild).toMatchObject({ reason: 'stale', events: 2 });
    expect(await page(new SqliteAuditIndex(afterWriter), 1)).toEqual(['MerchantRegistered', 'MerchantRenamed']);
    await afterWriter.close();
  });

  it('writes entries in the append\'s own savepoint: a refused append leaves none, its neighbours keep theirs', async () => {
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
    await expect(store.append('s', [{ type: 'Fine', data: { merchantId: 1 } }, { type: 'Poison', data: { merchantId: 1 } }], 'no_stream')).rejects.toThrow('cannot index');
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
