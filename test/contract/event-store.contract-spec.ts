import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/platform/clock.js';
import { ProjectedEvent, RecordedEvent, WrongExpectedRevisionError } from '../../src/platform/event-store/event-store.js';
import Database from 'better-sqlite3';
import { auditEventIndex } from '../../src/audit/index.js';
import { INDEX_SCHEMA_NAME } from '../../src/platform/event-store/sqlite-indexer.js';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store.js';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store.js';
import { eventStoreContract } from './event-store.contract.js';
import { eventually } from '../support/eventually.js';

const SQLITE = { appendMany: true, readBatches: true };

eventStoreContract('SQLite (embedded, in memory)', async () => new SqliteEventStore({ path: ':memory:' }), SQLITE);

const dirs: string[] = [];

afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'event-store-contract-'));
  dirs.push(dir);
  return join(dir, 'events.sqlite');
}

eventStoreContract('SQLite (embedded, file)', async () => new SqliteEventStore({ path: tempFile() }), SQLITE);

// Every readBatches of this one reads ahead on its thread, however short the range.
eventStoreContract('SQLite (embedded, file, reading ahead on a thread)', async () => new SqliteEventStore({ path: tempFile(), readAheadFrom: 0 }), SQLITE);

// Two stores on one file stand for two processes: every read that the in-process tail of
// recent appends answers must agree with what the file holds.
eventStoreContract(
  'SQLite (embedded, file, reads through a second store)',
  async () => {
    const path = tempFile();
    const writer = new SqliteEventStore({ path });
    const reader = new SqliteEventStore({ path, pollMs: 10 });
    return {
      append: (stream, events, expected) => writer.append(stream, events, expected),
      readStream: (stream) => reader.readStream(stream),
      readLastOfStream: (stream) => reader.readLastOfStream(stream),
      readAll: (options) => reader.readAll(options),
      subscribe: (after) => reader.subscribe(after),
      headPosition: () => reader.headPosition(),
      lastEventTime: () => reader.lastEventTime(),
      ping: () => reader.ping(),
      close: async () => {
        await writer.close();
        await reader.close();
      },
    };
  },
  { appendMany: false, readBatches: false },
);

describe('SQLite event times', () => {
  it('reads back the time of every event to the millisecond, from the file, from the read-ahead thread and past the year 9999', async () => {
    const path = tempFile();
    const times = [
      '1969-07-20T20:17:40.001Z',
      '2026-11-25T04:01:53.746Z',
      '2026-11-25T04:01:53.999Z',
      '9999-12-31T23:59:59.999Z',
      '+010000-01-01T00:00:00.000Z',
    ].map((t) => new Date(t));
    const clock = new ManualClock();
    const writer = new SqliteEventStore({ path, clock });
    for (const [i, at] of times.entries()) {
      clock.set(at);
      await writer.append(`t-${i}`, [{ type: 'T', data: { i } }], 'no_stream');
    }
    await writer.close();
    // A second store: its reads come from the file, not from the appender's tail of recent events.
    const reader = new SqliteEventStore({ path, readAheadFrom: 0 });
    try {
      const viaBatches: RecordedEvent[] = [];
      for await (const batch of reader.readBatches({ after: 0n, until: await reader.headPosition(), maxCount: 2 })) viaBatches.push(...batch);
      const viaStreams = (await Promise.all(times.map((_, i) => reader.readStream(`t-${i}`)))).flat();
      for (const read of [await reader.readAll(), viaBatches, viaStreams]) {
        expect(read.map((e) => e.createdAt.toISOString())).toEqual(times.map((t) => t.toISOString()));
      }
    } finally {
      await reader.close();
    }
  });
});

describe('SQLite long reads without provenance', () => {
  it('leave the id, revision and metadata out of the events the read-ahead thread sends', async () => {
    const path = tempFile();
    const store = new SqliteEventStore({ path, readAheadFrom: 0 });
    try {
      await store.append(
        'p-1',
        [
          { type: 'P', data: { i: 1 }, metadata: { merchantId: 7 } },
          { type: 'P', data: { i: 2 } },
        ],
        'no_stream',
      );
      const until = await store.headPosition();
      const lean: ProjectedEvent[] = [];
      for await (const batch of store.readBatches({ after: 0n, until, maxCount: 10, provenance: false })) lean.push(...batch);
      const whole: RecordedEvent[] = [];
      for await (const batch of store.readBatches({ after: 0n, until, maxCount: 10 })) whole.push(...batch);
      expect(lean.map((e) => Object.keys(e).sort())).toEqual([0, 1].map(() => ['createdAt', 'data', 'position', 'streamName', 'type']));
      expect(whole.map((e) => [e.revision, e.metadata, typeof e.id])).toEqual([
        [0, { merchantId: 7 }, 'string'],
        [1, {}, 'string'],
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite in-process tail of recent appends', () => {
  it("never skips another process's event that lands between this process's own", async () => {
    const path = tempFile();
    const mine = new SqliteEventStore({ path, pollMs: 10 });
    const other = new SqliteEventStore({ path });
    const subscription = mine.subscribe();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of subscription) {
        seen.push(event.type);
        if (seen.length === 4) break;
      }
    })();
    await mine.append('a', [{ type: 'Mine1', data: {} }], 'no_stream');
    await other.append('b', [{ type: 'Other1', data: {} }], 'no_stream');
    await mine.append(
      'a',
      [
        { type: 'Mine2', data: {} },
        { type: 'Mine3', data: {} },
      ],
      0,
    );
    await reading;
    expect(seen).toEqual(['Mine1', 'Other1', 'Mine2', 'Mine3']);
    // The same from a plain read after the first event.
    const [first] = await mine.readAll({ maxCount: 1 });
    expect((await mine.readAll({ after: first.position })).map((e) => e.type)).toEqual(['Other1', 'Mine2', 'Mine3']);
    await subscription.close();
    await mine.close();
    await other.close();
  });

  it('drops what every subscription has read, keeps what the slowest has not, and keeps the last appends when none is open', async () => {
    const store = new SqliteEventStore({ path: tempFile(), pollMs: 10 });
    const follow = (limit: number) => {
      const subscription = store.subscribe();
      const seen: bigint[] = [];
      const reading = (async () => {
        for await (const event of subscription) {
          seen.push(event.position);
          if (seen.length === limit) break;
        }
      })();
      return { seen, reading };
    };
    const eager = follow(12);
    const slow = follow(10);
    for (let i = 0; i < 10; i += 1) await store.append(`s-${i}`, [{ type: 'A', data: { i } }], 'no_stream');
    await slow.reading;
    await eventually(async () => expect(eager.seen).toHaveLength(10));
    // Both have read the ten (and the slow one has ended: a closed subscription holds nothing back), so the next append drops them.
    await store.append('s-10', [{ type: 'A', data: { i: 10 } }], 'no_stream');
    expect(store.tailLength).toBe(1);
    await eventually(async () => expect(eager.seen).toHaveLength(11));
    const behind = store.subscribe();
    await store.append('s-11', [{ type: 'A', data: { i: 11 } }], 'no_stream');
    // A subscription that has read nothing yet keeps everything after its start.
    expect(store.tailLength).toBe(2);
    await behind.close();
    await eager.reading;
    // What was dropped is read from the file, in order.
    expect((await store.readAll()).map((e) => e.data)).toEqual([...Array(12).keys()].map((i) => ({ i })));
    // No subscription open: the tail keeps the last appends for readers that follow the log.
    await store.append('s-12', [{ type: 'A', data: { i: 12 } }], 'no_stream');
    expect(store.tailLength).toBe(3);
    await store.close();
  });

  it('answers a reader that follows the log from the events handed to the appender', async () => {
    const store = new SqliteEventStore({ path: tempFile() });
    const appended = await store.append('s', [{ type: 'A', data: { x: 1 } }], 'no_stream');
    const [read] = await store.readAll({ after: appended.position - 1n });
    expect(read).toBe(appended.events[0]);
    await store.close();
  });
});

describe.each([
  ["on the caller's thread (a file in memory)", () => ':memory:'],
  ['on the writer thread (a file)', () => tempFile()],
])('SQLite group commit, %s', (_where, pathOf) => {
  it('writes appends that arrive together in one transaction, each still atomic on its own', async () => {
    const store = new SqliteEventStore({ path: pathOf() });
    await store.append('taken', [{ type: 'First', data: {} }], 'no_stream');
    const outcomes = await Promise.allSettled([
      store.append(
        'a',
        [
          { type: 'A1', data: {} },
          { type: 'A2', data: {} },
        ],
        'no_stream',
      ),
      store.append(
        'taken',
        [
          { type: 'Refused1', data: {} },
          { type: 'Refused2', data: {} },
        ],
        'no_stream',
      ),
      store.append('b', [{ type: 'B1', data: {} }], 'no_stream'),
      store.append('a', [{ type: 'A3', data: {} }], 1),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream('taken')).map((e) => e.type)).toEqual(['First']);
    expect((await store.readStream('a')).map((e) => e.type)).toEqual(['A1', 'A2', 'A3']);
    expect((await store.readAll()).map((e) => e.type)).toEqual(['First', 'A1', 'A2', 'B1', 'A3']);
    await store.close();
  });

  it('writes appends still waiting when the store closes', async () => {
    const store = new SqliteEventStore({ path: pathOf() });
    const pending = store.append('late', [{ type: 'Late', data: {} }], 'no_stream');
    await store.close();
    await expect(pending).resolves.toMatchObject({ revision: 0 });
  });
});

describe('SQLite writer thread', () => {
  it('is replaced when it dies, so the store goes on writing without a restart', async () => {
    const store = new SqliteEventStore({ path: tempFile() });
    try {
      await store.append('before', [{ type: 'A', data: {} }], 'no_stream');
      // The thread ends as a crash would end it (its own error, out of memory): every later append failed.
      const thread = (store as unknown as { writer: { thread: { worker: { terminate(): Promise<number> } } } }).writer.thread;
      await thread.worker.terminate();
      await expect(store.append('after', [{ type: 'B', data: {} }], 'no_stream')).resolves.toMatchObject({ revision: 0 });
      // Also when it dies while idle: the readiness check finds the store able to write.
      await (store as unknown as { writer: { thread: { worker: { terminate(): Promise<number> } } } }).writer.thread.worker.terminate();
      await store.ping();
      expect((store as unknown as { writer: { broken: boolean } }).writer.broken).toBe(false);
      await expect(store.append('later', [{ type: 'C', data: {} }], 'no_stream')).resolves.toMatchObject({ revision: 0 });
      expect((await store.readAll()).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite page cache', () => {
  it("holds the store's connection and its attached index to SQLite's 2 MB (better-sqlite3 builds it with 16 MB each)", async () => {
    const store = new SqliteEventStore({ path: tempFile(), index: auditEventIndex });
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('cache_size', { simple: true })).toBe(-2000);
    expect(db.pragma(`${INDEX_SCHEMA_NAME}.cache_size`, { simple: true })).toBe(-2000);
    // A connection of its own takes the build's default, which is what the setting replaces.
    const other = new Database(':memory:');
    expect(other.pragma('cache_size', { simple: true })).toBe(-16000);
    other.close();
    await store.close();
  });
});

describe('SQLite: two processes writing one file', () => {
  it('take turns for the write lock instead of failing (each batch begins IMMEDIATE)', async () => {
    const path = tempFile();
    const a = new SqliteEventStore({ path });
    const b = new SqliteEventStore({ path });
    // Each writer reads a stream's head, then inserts: a deferred transaction failed at once
    // ("database is locked") whenever the other process had committed in between.
    const writes = (store: SqliteEventStore, stream: string) =>
      (async () => {
        for (let i = 0; i < 150; i += 1) await store.append(stream, [{ type: 'Written', data: { i } }], i === 0 ? 'no_stream' : i - 1);
      })();
    await expect(Promise.all([writes(a, 'a'), writes(b, 'b'), writes(a, 'c'), writes(b, 'd')])).resolves.toBeDefined();
    await a.close();
    await b.close();
    const reader = new SqliteEventStore({ path });
    expect(await reader.readAll({ maxCount: 1000 })).toHaveLength(600);
    await reader.close();
  });
});

describe('SQLite subscription wake-ups', () => {
  it('delivers an event appended while the reader is busy without waiting for the poll', async () => {
    // With a one-minute poll, a missed wake-up would leave this test hanging until jest's timeout.
    const store = new SqliteEventStore({ path: ':memory:', pollMs: 60_000 });
    const subscription = store.subscribe();
    const seen: string[] = [];
    await store.append('s', [{ type: 'First', data: {} }], 'no_stream');
    for await (const event of subscription) {
      seen.push(event.type);
      // Append while the consumer is still handling the previous event.
      if (event.type === 'First') await store.append('s', [{ type: 'Second', data: {} }], 0);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['First', 'Second']);
    await store.close();
  });
});

const url = process.env.EVENTSTORE_URL;
if (url) {
  // Each test gets its own stream prefix on the shared server, so runs never collide.
  let prefix = '';
  eventStoreContract(
    'EventStoreDB',
    async () => {
      prefix = `contract-${randomUUID().slice(0, 8)}-`;
      return EventStoreDbEventStore.connect(url, { namespace: prefix });
    },
    { appendMany: false, readBatches: false },
    () => '',
  );

  describe('EventStoreDB: a namespace with a nested foreign namespace (the live service and its sandbox)', () => {
    it("never shows the nested namespace's events to the outer store", async () => {
      const outerPrefix = `contract-${randomUUID().slice(0, 8)}-`;
      const outer = await EventStoreDbEventStore.connect(url, { namespace: outerPrefix, foreignStreams: ['sandbox-'] });
      const inner = await EventStoreDbEventStore.connect(url, { namespace: `${outerPrefix}sandbox-run-1-` });
      try {
        const subscription = outer.subscribe();
        await outer.append('merchant-1', [{ type: 'Live', data: { n: 1 } }], 'no_stream');
        await inner.append('merchant-1', [{ type: 'Sandbox', data: { n: 2 } }], 'no_stream');
        const last = await outer.append('merchant-2', [{ type: 'Live', data: { n: 3 } }], 'no_stream');
        const seen: unknown[] = [];
        for await (const event of subscription) {
          seen.push(event.data);
          if (event.position === last.position) break;
        }
        expect(seen).toEqual([{ n: 1 }, { n: 3 }]);
        expect((await outer.readAll()).map((event) => event.data)).toEqual([{ n: 1 }, { n: 3 }]);
        expect(await outer.headPosition()).toBe(last.position);
        expect((await inner.readAll()).map((event) => [event.streamName, event.data])).toEqual([['merchant-1', { n: 2 }]]);
        await subscription.close();
      } finally {
        await outer.close();
        await inner.close();
      }
    });
  });
} else {
  describe('EventStore contract: EventStoreDB', () => {
    it.skip('skipped: set EVENTSTORE_URL to run the contract against EventStoreDB', () => undefined);
  });
}
