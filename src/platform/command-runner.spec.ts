import { CommandRunner } from './command-runner.js';
import { Decider } from './decider.js';
import { DomainEvent } from './event-store/event-store.js';
import { SqliteEventStore } from './event-store/sqlite-event-store.js';
import { ProjectionRunner } from './projections/projection-runner.js';
import { MemoryReadStore } from './read-store/memory-read-store.js';

type Counted = DomainEvent<'Counted', { n: number }>;
const counter: Decider<{ type: 'Count' }, { n: number }, Counted> = {
  initialState: () => ({ n: 0 }),
  decide: (_command, state) => [{ type: 'Counted', data: { n: state.n + 1 } }],
  evolve: (_state, event) => ({ n: event.data.n }),
};

describe('command runner', () => {
  it('serialises concurrent commands on one stream, so none is refused for a race it lost', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const projections = new ProjectionRunner(store, new MemoryReadStore(), []);
    await projections.start();
    const runner = new CommandRunner(store, projections);
    const outcomes = await Promise.allSettled(Array.from({ length: 100 }, () => runner.run('counter', counter, { type: 'Count' })));
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    const events = await store.readStream('counter');
    expect(events.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    await projections.stop();
    await store.close();
  });

  it('still runs commands on different streams side by side', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const projections = new ProjectionRunner(store, new MemoryReadStore(), []);
    await projections.start();
    const runner = new CommandRunner(store, projections);
    await Promise.all(Array.from({ length: 20 }, (_, i) => runner.run(`s-${i}`, counter, { type: 'Count' })));
    expect((await store.readAll()).length).toBe(20);
    await projections.stop();
    await store.close();
  });

  describe('folded states kept between commands', () => {
    type Event = DomainEvent<'Counted', { n: number }> | DomainEvent<'Reset', { n: 0 }>;
    type Command = { type: 'Count' } | { type: 'ResetAbove'; limit: number } | { type: 'RefuseAbove'; limit: number };
    const resettable: Decider<Command, { n: number }, Event> = {
      initialState: () => ({ n: 0 }),
      decide: (command, state) => {
        if (command.type === 'Count') return [{ type: 'Counted', data: { n: state.n + 1 } }];
        if (command.type === 'RefuseAbove' && state.n > command.limit) throw new Error(`refused at ${state.n}`);
        if (command.type === 'RefuseAbove') return [{ type: 'Counted', data: { n: state.n + 1 } }];
        return state.n > command.limit ? [{ type: 'Reset', data: { n: 0 } }] : [];
      },
      evolve: (_state, event) => ({ n: event.data.n }),
    };

    async function twoProcesses() {
      const store = new SqliteEventStore({ path: ':memory:' });
      const projections = new ProjectionRunner(store, new MemoryReadStore(), []);
      await projections.start();
      // Two runners on one store stand for two processes sharing the file: neither sees the other's cache.
      const a = new CommandRunner(store, projections);
      const b = new CommandRunner(store, projections);
      const ns = async () => (await store.readStream('s')).map((e) => (e.data as { n: number }).n);
      return { store, projections, a, b, ns, close: async () => (await projections.stop(), await store.close()) };
    }

    it('does not read the stream again for a command on a stream it just wrote', async () => {
      const { a, ns, close } = await twoProcesses();
      for (let i = 0; i < 5; i += 1) await a.run('s', resettable, { type: 'Count' });
      expect(await ns()).toEqual([1, 2, 3, 4, 5]);
      // The first command created the stream (not kept), the second read it back; then three hits.
      expect(a.cachedStateHits).toBe(3);
      await close();
    });

    it('starts over from the store when another writer made the kept state stale', async () => {
      const { a, b, ns, close } = await twoProcesses();
      await a.run('s', resettable, { type: 'Count' });
      await a.run('s', resettable, { type: 'Count' }); // A now keeps the state n = 2
      await b.run('s', resettable, { type: 'Count' });
      const hits = a.cachedStateHits;
      await a.run('s', resettable, { type: 'Count' });
      expect(await ns()).toEqual([1, 2, 3, 4]);
      expect(a.cachedStateHits).toBe(hits); // the kept state was refused, the stored one used
      await close();
    });

    it('takes a decision to append nothing on the stored history, not on a kept state', async () => {
      const { a, b, ns, close } = await twoProcesses();
      await a.run('s', resettable, { type: 'Count' });
      await a.run('s', resettable, { type: 'Count' });
      await b.run('s', resettable, { type: 'Count' });
      // A's kept state says n = 2 (nothing to reset); the stored history says n = 3.
      const result = await a.run('s', resettable, { type: 'ResetAbove', limit: 2 });
      expect(result.events.map((e) => e.type)).toEqual(['Reset']);
      expect(await ns()).toEqual([1, 2, 3, 0]);
      await close();
    });

    it('refuses a command only on the stored history', async () => {
      const { a, b, ns, close } = await twoProcesses();
      await a.run('s', resettable, { type: 'Count' });
      await a.run('s', resettable, { type: 'Count' });
      await b.run('s', resettable, { type: 'ResetAbove', limit: 1 });
      // A's kept state says n = 2 (refuse); the stored history says n = 0 (accept).
      await a.run('s', resettable, { type: 'RefuseAbove', limit: 1 });
      expect(await ns()).toEqual([1, 2, 0, 1]);
      await expect(b.run('s', resettable, { type: 'RefuseAbove', limit: 0 })).rejects.toThrow('refused at 1');
      await close();
    });

    describe('a stream said to be likely new', () => {
      function readsCounted(store: SqliteEventStore) {
        const reads: string[] = [];
        const readStream = store.readStream.bind(store);
        store.readStream = (name: string) => (reads.push(name), readStream(name));
        return reads;
      }

      it('is written without reading it first, expecting no stream', async () => {
        const { store, a, ns, close } = await twoProcesses();
        const reads = readsCounted(store);
        const result = await a.run('s', resettable, { type: 'Count' }, { likelyNew: true });
        expect(reads).toEqual([]);
        expect(result.created).toBe(true);
        expect(await ns()).toEqual([1]);
        expect(a.cachedStateHits).toBe(0);
        await close();
      });

      it('starts over from the stored history when the stream exists after all', async () => {
        const { store, a, b, ns, close } = await twoProcesses();
        await b.run('s', resettable, { type: 'Count' });
        await b.run('s', resettable, { type: 'Count' });
        const reads = readsCounted(store);
        const result = await a.run('s', resettable, { type: 'Count' }, { likelyNew: true });
        // The append from the initial state (n = 1, no stream) was refused; the stored n = 2 was used.
        expect(reads).toEqual(['s']);
        expect(result.created).toBe(false);
        expect(await ns()).toEqual([1, 2, 3]);
        await close();
      });

      it('refuses a command, or decides to append nothing, only on the stored history', async () => {
        const { b, ns, close } = await twoProcesses();
        await b.run('s', resettable, { type: 'Count' });
        await b.run('s', resettable, { type: 'Count' });
        // On the initial state (n = 0) nothing would be reset; the stored n = 2 is above the limit.
        expect((await b.run('s', resettable, { type: 'ResetAbove', limit: 1 }, { likelyNew: true })).events.map((e) => e.type)).toEqual(['Reset']);
        await b.run('s', resettable, { type: 'Count' });
        await b.run('s', resettable, { type: 'Count' });
        // On the initial state the command would be accepted; the stored n = 2 refuses it.
        await expect(b.run('t', resettable, { type: 'RefuseAbove', limit: 5 }, { likelyNew: true })).resolves.toBeDefined();
        await expect(b.run('s', resettable, { type: 'RefuseAbove', limit: 1 }, { likelyNew: true })).rejects.toThrow('refused at 2');
        expect(await ns()).toEqual([1, 2, 0, 1, 2]);
        await close();
      });
    });
  });
});
