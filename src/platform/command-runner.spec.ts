import { heldProjections } from '../../test/support/held-projections.js';
import { CommandRunner, PlanAbandoned, type PlanStep, unlessAbandoned } from './command-runner.js';
import { Decider } from './decider.js';
import { DomainEvent, type EventStore } from './event-store/event-store.js';
import { SqliteEventStore } from './event-store/sqlite-event-store.js';
import { ProjectionRunner } from './projections/projection-runner.js';
import { MemoryReadStore } from './read-store/memory-read-store.js';

type Counted = DomainEvent<'Counted', { n: number }>;
const counter: Decider<{ type: 'Count' }, { n: number }, Counted> = {
  initialState: () => ({ n: 0 }),
  decide: (_command, state) => [{ type: 'Counted', data: { n: state.n + 1 } }],
  evolve: (_state, event) => ({ n: event.data.n }),
};

/** Counts up, resets above a limit, or refuses above one: decisions that append, append nothing, or refuse. */
type ResettableEvent = DomainEvent<'Counted', { n: number }> | DomainEvent<'Reset', { n: 0 }>;
type ResettableCommand = { type: 'Count' } | { type: 'ResetAbove'; limit: number } | { type: 'RefuseAbove'; limit: number };
const resettable: Decider<ResettableCommand, { n: number }, ResettableEvent> = {
  initialState: () => ({ n: 0 }),
  decide: (command, state) => {
    if (command.type === 'Count') return [{ type: 'Counted', data: { n: state.n + 1 } }];
    if (command.type === 'RefuseAbove' && state.n > command.limit) throw new Error(`refused at ${state.n}`);
    if (command.type === 'RefuseAbove') return [{ type: 'Counted', data: { n: state.n + 1 } }];
    return state.n > command.limit ? [{ type: 'Reset', data: { n: 0 } }] : [];
  },
  evolve: (_state, event) => ({ n: event.data.n }),
};

/** One store, two runners: they stand for two processes sharing the file (neither sees the other's cache). */
async function twoProcesses() {
  const store = new SqliteEventStore({ path: ':memory:' });
  const projections = new ProjectionRunner(store, new MemoryReadStore(), []);
  await projections.start();
  const a = new CommandRunner(store, projections);
  const b = new CommandRunner(store, projections);
  const ns = async () => (await store.readStream('s')).map((e) => (e.data as { n: number }).n);
  return { store, projections, a, b, ns, close: async () => (await projections.stop(), await store.close()) };
}

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

  describe('a state the caller has just folded (known)', () => {
    async function setUp() {
      // `other` writes 's'; `runner` never kept it (it did not write it).
      const { store, a: other, b: runner, ns, close } = await twoProcesses();
      await other.run('s', resettable, { type: 'Count' });
      await other.run('s', resettable, { type: 'Count' });
      const reads: string[] = [];
      const readStream = store.readStream.bind(store);
      store.readStream = (name: string) => (reads.push(name), readStream(name));
      return { other, runner, reads, ns, close };
    }

    it('is decided on without reading the stream, and appended at its revision', async () => {
      const { runner, reads, ns, close } = await setUp();
      const result = await runner.run('s', resettable, { type: 'Count' }, { known: { state: { n: 2 }, revision: 1 } });
      expect(reads).toEqual([]);
      expect(result.state).toEqual({ n: 3 });
      expect(result.events.map((e) => e.revision)).toEqual([2]);
      expect(await ns()).toEqual([1, 2, 3]);
      await close();
    });

    it('starts over from the stored history when the stream moved on since it was read', async () => {
      const { other, runner, reads, ns, close } = await setUp();
      await other.run('s', resettable, { type: 'Count' });
      // Read at n = 2 (revision 1); another write made it n = 3 before the command.
      const result = await runner.run('s', resettable, { type: 'Count' }, { known: { state: { n: 2 }, revision: 1 } });
      expect(reads).toEqual(['s']);
      expect(result.state).toEqual({ n: 4 });
      expect(await ns()).toEqual([1, 2, 3, 4]);
      await close();
    });

    it('refuses a command, or appends nothing, only on the stored history', async () => {
      const { other, runner, ns, close } = await setUp();
      await other.run('s', resettable, { type: 'ResetAbove', limit: 1 });
      // The caller's stale n = 2 would refuse this and reset on the next; the stored n = 0 does neither.
      await runner.run('s', resettable, { type: 'RefuseAbove', limit: 1 }, { known: { state: { n: 2 }, revision: 1 } });
      const result = await runner.run('s', resettable, { type: 'ResetAbove', limit: 1 }, { known: { state: { n: 2 }, revision: 1 } });
      expect(result.events).toEqual([]);
      expect(await ns()).toEqual([1, 2, 0, 1]);
      await close();
    });
  });

  describe('plans committed together (runTogether)', () => {
    async function setUp(options: { atomic?: boolean } = {}) {
      const store = new SqliteEventStore({ path: ':memory:' });
      const projections = new ProjectionRunner(store, new MemoryReadStore(), []);
      await projections.start();
      const calls: string[] = [];
      const appendMany = store.appendMany.bind(store);
      const append = store.append.bind(store);
      // Without appendMany the runner must take the steps one by one (a store that cannot commit several streams).
      const seen: EventStore = Object.assign(Object.create(store) as EventStore, {
        append: (...args: Parameters<EventStore['append']>) => (calls.push(`append ${args[0]}`), append(...args)),
        appendMany:
          options.atomic === false
            ? undefined
            : (appends: Parameters<NonNullable<EventStore['appendMany']>>[0]) => (
                calls.push(`appendMany ${appends.map((a) => a.streamName).join(',')}`),
                appendMany(appends)
              ),
      });
      const runner = new CommandRunner(seen, projections);
      const other = new CommandRunner(store, projections);
      const ns = async (stream: string) => (await store.readStream(stream)).map((e) => (e.data as { n: number }).n);
      return { store, runner, other, calls, ns, close: async () => (await projections.stop(), await store.close()) };
    }
    const countBoth = (a: string, b: string) => async (step: PlanStep) => {
      const first = await step(a, counter, { type: 'Count' });
      const second = await step(b, counter, { type: 'Count' });
      return [...first, ...second].map((e) => e.data.n);
    };

    it('commits nothing of an abandoned plan, and unlessAbandoned answers undefined for it', async () => {
      const { runner, calls, ns, close } = await setUp();
      const abandoned = await unlessAbandoned(
        runner.runTogether(async (step) => {
          await step('a', counter, { type: 'Count' });
          throw new PlanAbandoned();
        }),
      );
      expect(abandoned).toBeUndefined();
      expect(calls).toEqual([]);
      expect(await ns('a')).toEqual([]);
      expect((await unlessAbandoned(runner.runTogether(countBoth('a', 'b'))))?.value).toEqual([1, 1]);
      await expect(unlessAbandoned(runner.runTogether(async () => Promise.reject(new Error('disk full'))))).rejects.toThrow('disk full');
      await close();
    });

    it('decides every stream first and commits them all in one append', async () => {
      const { runner, calls, ns, close } = await setUp();
      const { value, position } = await runner.runTogether(countBoth('a', 'b'));
      expect(value).toEqual([1, 1]);
      expect(calls).toEqual(['appendMany a,b']);
      expect(position).toBe(2n);
      expect([await ns('a'), await ns('b')]).toEqual([[1], [1]]);
      await close();
    });

    it('runs the whole plan again from the stored histories when one stream was written meanwhile', async () => {
      const { runner, other, ns, close } = await setUp();
      await runner.runTogether(countBoth('a', 'b'));
      await runner.runTogether(countBoth('a', 'b')); // the runner now keeps a = 2 and b = 2
      await other.run('b', counter, { type: 'Count' }); // b = 3, unknown to the runner
      const { value } = await runner.runTogether(countBoth('a', 'b'));
      expect(value).toEqual([3, 4]);
      // Nothing of the refused attempt (a = 3, b = 3 from the kept states) was written.
      expect([await ns('a'), await ns('b')]).toEqual([
        [1, 2, 3],
        [1, 2, 3, 4],
      ]);
      await close();
    });

    it('commits nothing when a later step refuses', async () => {
      const { runner, ns, close } = await setUp();
      const refusing: Decider<{ type: 'Refuse' }, { n: number }, Counted> = {
        ...counter,
        decide: () => {
          throw new Error('refused');
        },
      };
      await expect(
        runner.runTogether(async (step) => (await step('a', counter, { type: 'Count' }), await step('b', refusing, { type: 'Refuse' }))),
      ).rejects.toThrow('refused');
      expect(await ns('a')).toEqual([]);
      await close();
    });

    it('lets many plans share a hot stream without losing races to each other', async () => {
      const { runner, ns, close } = await setUp();
      const outcomes = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => runner.runTogether(countBoth(`own-${i}`, 'shared'))));
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
      expect(await ns('shared')).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      await close();
    });

    it('takes the steps one by one on a store that cannot commit several streams at once', async () => {
      const { runner, calls, ns, close } = await setUp({ atomic: false });
      const { value } = await runner.runTogether(countBoth('a', 'b'));
      expect(value).toEqual([1, 1]);
      expect(calls).toEqual(['append a', 'append b']);
      expect([await ns('a'), await ns('b')]).toEqual([[1], [1]]);
      await close();
    });
  });

  describe('an answer that decides nothing waits for the read models too', () => {
    async function setUp(options: { atomic?: boolean } = {}) {
      const store = new SqliteEventStore({ path: ':memory:' });
      const projections = heldProjections();
      const seen: EventStore = options.atomic === false ? Object.assign(Object.create(store) as EventStore, { appendMany: undefined }) : store;
      const runner = new CommandRunner(seen, projections.runner);
      // Another writer's two events on 's' (positions 1 and 2): the read models have applied the first only.
      await store.append('s', [{ type: 'Counted', data: { n: 1 } }], 'no_stream');
      await store.append('s', [{ type: 'Counted', data: { n: 2 } }], 0);
      projections.applyUpTo(1n);
      return { store, runner, projections, close: () => store.close() };
    }

    it('answers a command that appends nothing only once the read models show the last event it read', async () => {
      const { runner, projections, close } = await setUp();
      const answer = runner.run('s', resettable, { type: 'ResetAbove', limit: 5 });
      expect(await projections.holds(answer)).toBe(true);
      expect(projections.asked).toEqual([2n]);
      projections.applyUpTo(2n);
      expect((await answer).events).toEqual([]);
      await close();
    });

    it('holds a repeat back as long as the command it repeats, when that one is still waiting for the read models', async () => {
      const { runner, projections, close } = await setUp();
      projections.applyUpTo(2n);
      // The first resets (position 3) and waits for it; the repeat finds it reset and decides nothing.
      const first = runner.run('s', resettable, { type: 'ResetAbove', limit: 1 });
      const repeat = runner.run('s', resettable, { type: 'ResetAbove', limit: 1 });
      expect(await projections.holds(first)).toBe(true);
      expect(await projections.holds(repeat, 2)).toBe(true);
      expect(projections.asked).toEqual([3n, 3n]);
      projections.applyUpTo(3n);
      expect((await first).events.map((e) => e.type)).toEqual(['Reset']);
      expect((await repeat).events).toEqual([]);
      await close();
    });

    it('waits for nothing more than its own events where a command appends', async () => {
      const { runner, projections, close } = await setUp();
      const answer = runner.run('s', resettable, { type: 'Count' });
      expect(await projections.holds(answer)).toBe(true);
      projections.applyUpTo(3n);
      await answer;
      expect(projections.asked).toEqual([3n]);
      await close();
    });

    it('skips the wait where the caller answers nobody', async () => {
      const { runner, projections, close } = await setUp();
      await runner.run('s', resettable, { type: 'ResetAbove', limit: 5 }, { waitForReadModels: false });
      expect(projections.asked).toEqual([]);
      await close();
    });

    for (const atomic of [true, false]) {
      describe(atomic ? 'a plan committed at once' : 'a plan taken step by step', () => {
        it('answers a plan that appends nothing once the read models show the streams it decided on', async () => {
          const { runner, projections, close } = await setUp({ atomic });
          const answer = runner.runTogether(async (step) => {
            await step('empty', resettable, { type: 'ResetAbove', limit: 5 });
            return step('s', resettable, { type: 'ResetAbove', limit: 5 });
          });
          expect(await projections.holds(answer)).toBe(true);
          expect(projections.asked).toEqual([2n]);
          projections.applyUpTo(2n);
          expect(await answer).toEqual({ value: [], position: undefined });
          await close();
        });

        it('hands an abandoned plan back (PlanAbandoned) only once the read models show the streams it decided on', async () => {
          const { runner, projections, close } = await setUp({ atomic });
          const answer = unlessAbandoned(
            runner.runTogether(async (step) => {
              if ((await step('s', resettable, { type: 'ResetAbove', limit: 5 })).length === 0) throw new PlanAbandoned();
            }),
          );
          expect(await projections.holds(answer)).toBe(true);
          expect(projections.asked).toEqual([2n]);
          projections.applyUpTo(2n);
          expect(await answer).toBeUndefined();
          await close();
        });
      });
    }
  });
});
