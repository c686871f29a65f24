import { jest } from '@jest/globals';
import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { MemoryReadStore } from '../platform/read-store/memory-read-store.js';
import { PointInTimeReadStore } from './point-in-time-read-store.js';

const def = { name: 'things', indexes: [] };
const created_at = '2026-01-01T00:00:00.000Z';

async function storeHolding(name: string): Promise<MemoryReadStore> {
  const store = new MemoryReadStore();
  await store.collection(def).put({ _id: 'x', created_at, name }, 1n);
  return store;
}

describe('PointInTimeReadStore', () => {
  afterEach(() => jest.restoreAllMocks());

  it('redirects the work it runs, across awaits, while another piece of work ends; the context goes only when the last has ended', async () => {
    const disable = jest.spyOn(AsyncLocalStorage.prototype, 'disable');
    const live = await storeHolding('live');
    const store = new PointInTimeReadStore(live);
    const things = store.collection(def);
    const nameOf = async () => ((await things.get('x')) as { name: string } | null)?.name;

    const releaseFirst = store.hold();
    const releaseSecond = store.hold();
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    const second = store.runWith(await storeHolding('then'), async () => {
      const before = await nameOf();
      await paused;
      await tick();
      return [before, await nameOf()];
    });
    expect(await store.runWith(await storeHolding('earlier'), nameOf)).toBe('earlier');
    releaseFirst();
    // The first piece of work has ended; the second, still under way, keeps its store.
    expect(disable).not.toHaveBeenCalled();
    resume();
    expect(await second).toEqual(['then', 'then']);
    releaseSecond();
    releaseSecond();
    expect(disable).toHaveBeenCalledTimes(1);
    expect(await nameOf()).toBe('live');

    // Switched on again by the next piece of work.
    const releaseThird = store.hold();
    expect(await store.runWith(await storeHolding('later'), nameOf)).toBe('later');
    releaseThird();
    expect(disable).toHaveBeenCalledTimes(2);
  });

  it("offers the target's bulk writes (the runner writes MongoDB in bulk through it), to the store the work is pointed at", async () => {
    const live = await storeHolding('live');
    const store = new PointInTimeReadStore(live);
    const things = store.collection(def);
    expect(things.applyMany).toBeDefined();
    await things.applyMany!([{ id: 'y', position: 2n, change: () => ({ _id: 'y', created_at, name: 'bulk' }) }]);
    expect(await live.collection(def).get('y')).toMatchObject({ name: 'bulk' });
    const other = await storeHolding('then');
    await store.runWith(other, () => things.applyMany!([{ id: 'z', position: 2n, change: () => ({ _id: 'z', created_at, name: 'there' }) }]));
    expect([await live.collection(def).get('z'), await other.collection(def).get('z')]).toEqual([null, expect.objectContaining({ name: 'there' })]);
    // A target without them: none offered, so the runner writes one document at a time.
    const plain = { ...live, collection: () => ({ get: async () => null }) } as unknown as MemoryReadStore;
    expect(new PointInTimeReadStore(plain).collection(def).applyMany).toBeUndefined();
  });
});
