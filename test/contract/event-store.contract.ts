/**
 * The contract every EventStore adapter keeps. Each adapter's spec calls this with a factory
 * that returns a fresh, empty store (for a server-backed adapter: a fresh stream prefix).
 */
import { randomUUID } from 'node:crypto';
import { EventStore, ProjectedEvent, RecordedEvent, WrongExpectedRevisionError } from '../../src/platform/event-store/event-store.js';

/** The optional operations an adapter offers: each is held to the contract where offered, and its absence asserted where not. */
export interface EventStoreCapabilities {
  appendMany: boolean;
  readBatches: boolean;
}

export function eventStoreContract(name: string, make: () => Promise<EventStore>, capabilities: EventStoreCapabilities, streamPrefix = () => ''): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let prefix: string;
    const s = (n: string) => `${prefix}${n}`;
    /** A test of an optional operation: where the adapter does not offer it, a test that asserts its absence instead. */
    const offered = (capability: keyof EventStoreCapabilities, title: string, test: () => Promise<void>) => {
      if (capabilities[capability]) it(title, test);
      else it(`does not offer ${capability} (so callers take the general path): instead of "${title}"`, () => expect(store[capability]).toBeUndefined());
    };
    beforeEach(async () => {
      store = await make();
      prefix = streamPrefix();
    });
    afterEach(async () => {
      await store.close();
    });

    it('reads back appended events in order with revisions, positions and metadata', async () => {
      const result = await store.append(
        s('order-1'),
        [
          { type: 'OrderPlaced', data: { total: 10 }, metadata: { merchantId: 7 } },
          { type: 'OrderShipped', data: { carrier: 'x' } },
        ],
        'no_stream',
      );
      expect(result.revision).toBe(1);
      const events = await store.readStream(s('order-1'));
      expect(events.map((e) => [e.type, e.data, e.revision])).toEqual([
        ['OrderPlaced', { total: 10 }, 0],
        ['OrderShipped', { carrier: 'x' }, 1],
      ]);
      expect(events[0].metadata.merchantId).toBe(7);
      expect(events[0].streamName).toBe(s('order-1'));
      expect(events[1].position > events[0].position).toBe(true);
      expect(result.position).toBe(events[1].position);
      expect(events[0].createdAt).toBeInstanceOf(Date);
    });

    it('tells when its last event was recorded, and nothing when it is empty', async () => {
      expect(await store.lastEventTime()).toBeUndefined();
      await store.append(s('t-1'), [{ type: 'A', data: {} }], 'no_stream');
      await store.append(
        s('t-2'),
        [
          { type: 'B', data: {} },
          { type: 'C', data: {} },
        ],
        'no_stream',
      );
      const [, last] = await store.readStream(s('t-2'));
      expect(await store.lastEventTime()).toEqual(last.createdAt);
    });

    it('returns [] for a stream that does not exist', async () => {
      expect(await store.readStream(s('nothing-here'))).toEqual([]);
    });

    it("reads a stream's last event alone, and nothing for a stream that does not exist", async () => {
      expect(await store.readLastOfStream(s('no-such-stream'))).toBeUndefined();
      await store.append(
        s('last-of'),
        [
          { type: 'C', data: { n: 1 } },
          { type: 'C', data: { n: 2 } },
        ],
        'no_stream',
      );
      await store.append(s('last-of-other'), [{ type: 'C', data: { n: 9 } }], 'no_stream');
      await store.append(s('last-of'), [{ type: 'D', data: { n: 3 }, metadata: { actor: 'a' } }], 1);
      const all = await store.readStream(s('last-of'));
      expect(all).toHaveLength(3);
      expect(await store.readLastOfStream(s('last-of'))).toEqual(all[2]);
      expect((await store.readLastOfStream(s('last-of')))?.data).toEqual({ n: 3 });
    });

    it('refuses no_stream when the stream exists, and a stale revision', async () => {
      await store.append(s('a'), [{ type: 'A', data: {} }], 'no_stream');
      await expect(store.append(s('a'), [{ type: 'A', data: {} }], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await store.append(s('a'), [{ type: 'B', data: {} }], 0);
      await expect(store.append(s('a'), [{ type: 'C', data: {} }], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.append(s('missing'), [{ type: 'C', data: {} }], 3)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(s('a'))).map((e) => e.type)).toEqual(['A', 'B']);
    });

    it('lets exactly one of many concurrent no_stream appends win', async () => {
      const attempts = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => store.append(s('unique-key'), [{ type: 'Claimed', data: { i } }], 'no_stream')),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      for (const a of attempts.filter((x) => x.status === 'rejected')) {
        expect((a as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect(await store.readStream(s('unique-key'))).toHaveLength(1);
    });

    it('appends with any regardless of the stream state', async () => {
      await store.append(s('free'), [{ type: 'A', data: {} }], 'any');
      await store.append(s('free'), [{ type: 'B', data: {} }], 'any');
      expect((await store.readStream(s('free'))).map((e) => e.revision)).toEqual([0, 1]);
    });

    it('keeps the caller-chosen event id', async () => {
      const id = randomUUID();
      await store.append(s('ids'), [{ type: 'A', data: {}, id }], 'no_stream');
      expect((await store.readStream(s('ids')))[0].id).toBe(id);
    });

    it('reads the global log across streams after a position, and up to a bound', async () => {
      const first = await store.append(s('x'), [{ type: 'X1', data: {} }], 'no_stream');
      await store.append(s('y'), [{ type: 'Y1', data: {} }], 'no_stream');
      const third = await store.append(s('x'), [{ type: 'X2', data: {} }], 0);
      const mine = (events: RecordedEvent[]) => events.filter((e) => e.streamName.startsWith(prefix));
      const after = mine(await store.readAll({ after: first.position, maxCount: 1000 }));
      expect(after.map((e) => e.type)).toEqual(['Y1', 'X2']);
      const until = mine(await store.readAll({ until: third.position - 1n, maxCount: 1000 }));
      expect(until.map((e) => e.type)).toEqual(['X1', 'Y1']);
      expect(await store.headPosition()).toBeGreaterThanOrEqual(third.position);
    });

    it('delivers existing then live events to a subscription, in order, and stops on close', async () => {
      expect.assertions(1);
      const start = await store.headPosition();
      await store.append(s('live'), [{ type: 'E0', data: {} }], 'no_stream');
      const subscription = store.subscribe(start);
      const seen: string[] = [];
      const reading = (async () => {
        for await (const event of subscription) {
          if (!event.streamName.startsWith(prefix)) continue;
          seen.push(event.type);
          if (seen.length === 3) break;
        }
      })();
      await store.append(s('live'), [{ type: 'E1', data: {} }], 0);
      await store.append(s('live'), [{ type: 'E2', data: {} }], 1);
      await reading;
      expect(seen).toEqual(['E0', 'E1', 'E2']);
      await subscription.close();
    });

    it('starts a subscription strictly after the given position', async () => {
      expect.assertions(1);
      const first = await store.append(s('excl'), [{ type: 'First', data: {} }], 'no_stream');
      await store.append(s('excl'), [{ type: 'Second', data: {} }], 0);
      const subscription = store.subscribe(first.position);
      for await (const event of subscription) {
        if (!event.streamName.startsWith(prefix)) continue;
        expect(event.type).toBe('Second');
        break;
      }
      await subscription.close();
    });

    it('reads only the asked types from the global log, in order', async () => {
      const start = await store.headPosition();
      await store.append(
        s('t1'),
        [
          { type: 'Kept', data: { n: 1 } },
          { type: 'Skipped', data: {} },
        ],
        'no_stream',
      );
      await store.append(
        s('t2'),
        [
          { type: 'Other', data: {} },
          { type: 'Kept', data: { n: 2 } },
          { type: 'AlsoKept', data: { n: 3 } },
        ],
        'no_stream',
      );
      const head = await store.headPosition();
      const mine = (events: RecordedEvent[]) => events.filter((e) => e.streamName.startsWith(prefix));
      const kept = mine(await store.readAll({ after: start, until: head, types: ['Kept', 'AlsoKept'], maxCount: 1000 }));
      expect(kept.map((e) => [e.type, e.data])).toEqual([
        ['Kept', { n: 1 }],
        ['Kept', { n: 2 }],
        ['AlsoKept', { n: 3 }],
      ]);
      expect(mine(await store.readAll({ after: start, types: ['Nothing'], maxCount: 1000 }))).toEqual([]);
      const firstOnly = await store.readAll({ after: start, types: ['Kept'], maxCount: 1 });
      expect(firstOnly.map((e) => e.data)).toEqual([{ n: 1 }]);
    });

    it('reads data, metadata and names back exactly, from the stream and from the global log', async () => {
      const start = await store.headPosition();
      const data = { text: 'quote " backslash \\ newline \n tab \t é 😀 \u2028', nested: { list: [1, 2.5, null, true, { a: [] }] }, empty: {}, none: null };
      const metadata = { merchantId: 3, correlationId: 'c "1"', actor: 'ünïcode' };
      await store.append(s('odd "name" é'), [{ type: 'Odd.Type_1', data, metadata }], 'no_stream');
      const [fromStream] = await store.readStream(s('odd "name" é'));
      const [fromLog] = (await store.readAll({ after: start, maxCount: 10 })).filter((e) => e.streamName.startsWith(prefix));
      for (const event of [fromStream, fromLog]) {
        expect(event.data).toEqual(data);
        expect(event.metadata).toMatchObject(metadata);
        expect(event.type).toBe('Odd.Type_1');
        expect(event.streamName).toBe(s('odd "name" é'));
        expect(event.createdAt).toBeInstanceOf(Date);
        expect(Number.isNaN(event.createdAt.getTime())).toBe(false);
      }
      expect(fromLog.position).toBe(fromStream.position);
      expect(fromLog.id).toBe(fromStream.id);
    });

    it('pages the global log in order across batches', async () => {
      const start = await store.headPosition();
      for (let i = 0; i < 25; i += 1) await store.append(s(`page-${i}`), [{ type: 'P', data: { i } }], 'no_stream');
      const seen: number[] = [];
      let after = start;
      for (;;) {
        const batch = (await store.readAll({ after, maxCount: 7 })).filter((e) => e.streamName.startsWith(prefix));
        if (batch.length === 0) break;
        seen.push(...batch.map((e) => (e.data as { i: number }).i));
        after = batch[batch.length - 1].position;
      }
      expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i));
    });

    offered('appendMany', 'appends to several streams in one commit, or to none', async () => {
      if (!store.appendMany) throw new Error('appendMany is not offered');
      await store.append(s('m-existing'), [{ type: 'E', data: { n: 0 } }], 'no_stream');
      const results = await store.appendMany([
        {
          streamName: s('m-new'),
          events: [
            { type: 'A', data: { n: 1 } },
            { type: 'A', data: { n: 2 } },
          ],
          expected: 'no_stream',
        },
        { streamName: s('m-existing'), events: [{ type: 'B', data: { n: 3 } }], expected: 0 },
      ]);
      expect(results.map((r) => r.revision)).toEqual([1, 1]);
      expect(results[0].events.map((e) => e.streamName)).toEqual([s('m-new'), s('m-new')]);
      expect(results[0].position < results[1].position).toBe(true);
      expect((await store.readStream(s('m-existing'))).map((e) => e.data)).toEqual([{ n: 0 }, { n: 3 }]);
      const log = (await store.readAll({ after: results[0].position - 2n, maxCount: 10 })).map((e) => [e.streamName, e.revision, e.position]);
      expect(log).toEqual([...results[0].events, ...results[1].events].map((e) => [e.streamName, e.revision, e.position]));
      // The second stream's revision is stale: the first stream's events are not written either.
      const refused = store.appendMany([
        { streamName: s('m-other'), events: [{ type: 'C', data: {} }], expected: 'no_stream' },
        { streamName: s('m-existing'), events: [{ type: 'D', data: {} }], expected: 0 },
      ]);
      await expect(refused).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(refused).rejects.toMatchObject({ streamName: s('m-existing'), actual: 1 });
      expect(await store.readStream(s('m-other'))).toEqual([]);
      expect(await store.readStream(s('m-existing'))).toHaveLength(2);
    });

    offered('readBatches', 'reads long ranges in the same batches as readAll', async () => {
      if (!store.readBatches) throw new Error('readBatches is not offered');
      const start = await store.headPosition();
      for (let i = 0; i < 25; i += 1) await store.append(s(`batches-${i}`), [{ type: i % 3 === 0 ? 'Skipped' : 'B', data: { i } }], 'no_stream');
      const until = (await store.headPosition()) - 2n;
      await store.append(s('after-until'), [{ type: 'B', data: { i: 99 } }], 'no_stream');
      const pages = async (types?: string[]) => {
        const out: number[][] = [];
        for await (const batch of store.readBatches!({ after: start, until, maxCount: 4, types })) {
          out.push(batch.filter((e) => e.streamName.startsWith(prefix)).map((e) => (e.data as { i: number }).i));
        }
        return out;
      };
      const expected = (keep: (i: number) => boolean) => {
        const all = Array.from({ length: 23 }, (_, i) => i).filter(keep);
        return Array.from({ length: Math.ceil(all.length / 4) }, (_, k) => all.slice(k * 4, k * 4 + 4));
      };
      expect(await pages()).toEqual(expected(() => true));
      expect(await pages(['B'])).toEqual(expected((i) => i % 3 !== 0));
      // Leaving the loop early stops the reading.
      for await (const batch of store.readBatches({ after: start, until, maxCount: 2 })) {
        expect(batch).toHaveLength(2);
        break;
      }
    });

    offered('readBatches', 'reads long ranges without provenance as the same events, less their id, revision and metadata', async () => {
      if (!store.readBatches) throw new Error('readBatches is not offered');
      const start = await store.headPosition();
      for (let i = 0; i < 9; i += 1) {
        await store.append(
          s(`projected-${i % 3}`),
          [{ type: i % 2 === 0 ? 'P' : 'Q', data: { i, nested: { list: [i, `x${i}`] } }, metadata: { merchantId: 7, actor: `a${i}` } }],
          'any',
        );
      }
      const until = await store.headPosition();
      const projected = (e: ProjectedEvent) => ({
        type: e.type,
        data: e.data,
        streamName: e.streamName,
        position: e.position,
        createdAt: e.createdAt.toISOString(),
      });
      for (const types of [undefined, ['P']]) {
        const whole: RecordedEvent[] = [];
        for await (const batch of store.readBatches({ after: start, until, maxCount: 4, types }))
          whole.push(...batch.filter((e) => e.streamName.startsWith(prefix)));
        const lean: ProjectedEvent[] = [];
        for await (const batch of store.readBatches({ after: start, until, maxCount: 4, types, provenance: false }))
          lean.push(...batch.filter((e) => e.streamName.startsWith(prefix)));
        expect(whole).toHaveLength(types ? 5 : 9);
        expect(lean.map(projected)).toEqual(whole.map(projected));
      }
    });

    it('ends a waiting subscription when it is closed', async () => {
      const subscription = store.subscribe(await store.headPosition());
      const reading = (async () => {
        let n = 0;
        for await (const _ of subscription) n += 1;
        return n;
      })();
      await new Promise((r) => setTimeout(r, 20));
      await subscription.close();
      await expect(reading).resolves.toBe(0);
    });

    it('keeps a second store of the same adapter working after the first is closed (the sandbox retires its store while the live one runs)', async () => {
      const other = await make();
      const otherPrefix = streamPrefix();
      const o = (n: string) => `${otherPrefix}${n}`;
      try {
        await store.append(s('two-a'), [{ type: 'A', data: { n: 1 } }], 'no_stream');
        const before = await other.append(o('two-b'), [{ type: 'B', data: { n: 1 } }], 'no_stream');
        // Closed while the other has an append under way and a subscription waiting.
        const subscription = other.subscribe(before.position);
        const inFlight = other.append(o('two-b'), [{ type: 'B', data: { n: 2 } }], 0);
        await store.close();
        await expect(inFlight).resolves.toMatchObject({ revision: 1 });
        const after = await other.append(o('two-b'), [{ type: 'B', data: { n: 3 } }], 1);
        expect((await other.readStream(o('two-b'))).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
        const seen: unknown[] = [];
        for await (const event of subscription) {
          if (event.streamName === o('two-b')) seen.push(event.data);
          if (event.position >= after.position) break;
        }
        expect(seen).toEqual([{ n: 2 }, { n: 3 }]);
        await subscription.close();
        expect((await other.readAll({ after: before.position - 1n })).filter((e) => e.streamName === o('two-b'))).toHaveLength(3);
      } finally {
        await other.close();
        // afterEach closes `store` again: closing twice is allowed.
      }
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
