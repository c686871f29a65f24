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
});
