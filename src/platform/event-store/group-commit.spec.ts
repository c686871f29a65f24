import { GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes what is queued in one turn as one batch, and what comes during a write as the next, one at a time', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    let inFlight = 0;
    const group = new GroupCommit<number>(async (batch) => {
      inFlight += 1;
      expect(inFlight).toBe(1);
      batches.push(batch);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      inFlight -= 1;
    });
    group.add(1);
    group.add(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(group.writing).toBeDefined();
    group.add(3);
    group.add(4);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1, 2]]);
    release();
    await group.drain();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(group.writing).toBeUndefined();
  });

  it('drains what waits for its turn at once', async () => {
    const batches: string[][] = [];
    const group = new GroupCommit<string>(async (batch) => void batches.push(batch));
    group.add('a');
    await group.drain();
    expect(batches).toEqual([['a']]);
    await group.drain();
    expect(batches).toEqual([['a']]);
  });
});
