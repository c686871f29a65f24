/**
 * replay() writes collections held in this process at once (ImmediateCollection) and the others
 * through their promises (MongoDB); both paths, and a mix of them within one event, must build
 * the same documents and checkpoints.
 */
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { MemoryReadStore } from '../read-store/memory-read-store.js';
import { CollectionDef, ReadCollection, ReadDoc, ReadStore } from '../read-store/read-store.js';
import { Projection, ProvenanceProjection } from './projection.js';
import { ProjectionRunner, replay } from './projection-runner.js';
import type { EventStore, Subscription } from '../event-store/event-store.js';
import { eventually } from '../../../test/support/eventually.js';

interface Tally extends ReadDoc {
  count: number;
  last: string;
}

/** Counts events per key; `Reset` deletes the document. */
function tally(name: string): Projection<Tally> {
  return {
    name,
    collection: { name, indexes: [['count']] },
    handles: ['Counted', 'Reset'],
    keys: (event) => [(event.data as { key: string }).key],
    evolve(doc, event, key) {
      if (event.type === 'Reset') return null;
      return { _id: key, created_at: doc?.created_at ?? event.createdAt.toISOString(), count: (doc?.count ?? 0) + 1, last: `${name}:${event.position}` };
    },
  };
}

/**
 * A MemoryReadStore whose collections named in `promised` answer only through promises, as MongoDB's do;
 * with `calls`, they also take changes in bulk (applyMany), and every call of each kind is counted there.
 */
function withPromisedCollections(store: MemoryReadStore, promised: readonly string[], calls?: Record<string, number>): ReadStore {
  const count = <R>(name: string, call: () => R): R => {
    if (calls) calls[name] = (calls[name] ?? 0) + 1;
    return call();
  };
  return {
    durable: false,
    collection<T extends ReadDoc>(def: CollectionDef): ReadCollection<T> {
      const inner = store.collection<T>(def);
      if (!promised.includes(def.name)) return inner;
      return {
        order: inner.order,
        get: (id) => count('get', () => inner.get(id)),
        findOne: (where) => inner.findOne(where),
        put: (doc, position) => count('put', () => inner.put(doc, position)),
        delete: (id, position) => count('delete', () => inner.delete(id, position)),
        ...(calls && {
          applyMany: (changes: Parameters<NonNullable<ReadCollection<T>['applyMany']>>[0]) => count('applyMany', () => inner.applyMany!(changes)),
        }),
        list: (query) => inner.list(query),
        walk: (query) => inner.walk(query),
        count: (query) => inner.count(query),
      };
    },
    getCheckpoint: (name) => store.getCheckpoint(name),
    setCheckpoint: (name, position) => store.setCheckpoint(name, position),
    clear: () => store.clear(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

describe('replay()', () => {
  let events: SqliteEventStore;
  const projections = [tally('first'), tally('second')];

  beforeAll(async () => {
    events = new SqliteEventStore({ path: ':memory:' });
    const keys = ['a', 'b', 'c', 'd'];
    for (let i = 0; i < 60; i += 1) {
      const key = keys[(i * 7) % keys.length];
      const type = i % 11 === 10 ? 'Reset' : 'Counted';
      await events.append(`s-${key}`, [{ type, data: { key } }], 'any');
    }
    await events.append('other', [{ type: 'Ignored', data: { key: 'a' } }], 'any');
  });

  afterAll(async () => {
    await events.close();
  });

  async function build(
    promised: readonly string[],
    calls?: Record<string, number>,
  ): Promise<{ docs: Record<string, ReadDoc[]>; checkpoints: (bigint | undefined)[]; position: bigint }> {
    const memory = new MemoryReadStore();
    const store = withPromisedCollections(memory, promised, calls);
    const progress = await replay(events, store, projections);
    const docs: Record<string, ReadDoc[]> = {};
    for (const p of projections) docs[p.name] = await memory.collection(p.collection).list({ limit: 100 });
    return { docs, checkpoints: await Promise.all(projections.map((p) => memory.getCheckpoint(p.name))), position: progress.position };
  }

  it('builds the same documents and checkpoints at once, through promises, and mixed', async () => {
    const immediate = await build([]);
    expect(immediate.docs.first.length).toBeGreaterThan(0);
    expect(immediate.docs.first.map((d) => d.count)).not.toEqual([0, 0, 0, 0]);
    expect(immediate.position).toBe(await events.headPosition());
    expect(await build(['first', 'second'])).toEqual(immediate);
    expect(await build(['first'])).toEqual(immediate);
    expect(await build(['second'])).toEqual(immediate);
  });

  it('builds the same documents with one bulk change per collection and batch when the collections take them (applyMany), and no get or put', async () => {
    const immediate = await build([]);
    const calls: Record<string, number> = {};
    expect(await build(['first', 'second'], calls)).toEqual(immediate);
    // 61 events, one batch: one applyMany per collection.
    expect(calls).toEqual({ applyMany: 2 });
    const small: Record<string, number> = {};
    const memory = new MemoryReadStore();
    await replay(events, withPromisedCollections(memory, ['first', 'second'], small), projections, { batchSize: 10 });
    // 60 events handled (one is of a type none handles), in batches of 10: six per collection.
    expect(small).toEqual({ applyMany: 12 });
    for (const p of projections) expect(await memory.collection(p.collection).list({ limit: 100 })).toEqual(immediate.docs[p.name]);
  });

  it('stops a bulk replay before the event it is told to, as the one-by-one replay does', async () => {
    const recorded = await events.readAll();
    const stopAt = recorded[25].position;
    const stopBefore = (event: { position: bigint }) => event.position >= stopAt;
    const one = new MemoryReadStore();
    const bulk = new MemoryReadStore();
    const byOne = await replay(events, one, projections, { stopBefore });
    const inBulk = await replay(events, withPromisedCollections(bulk, ['first', 'second'], {}), projections, { stopBefore, batchSize: 7 });
    expect(inBulk).toEqual(byOne);
    expect(byOne.position).toBe(recorded[24].position);
    for (const p of projections)
      expect(await bulk.collection(p.collection).list({ limit: 100 })).toEqual(await one.collection(p.collection).list({ limit: 100 }));
  });

  it('offers immediate access only on collections held in this process', () => {
    const memory = new MemoryReadStore();
    expect(memory.collection(projections[0].collection).immediate).toBeDefined();
    expect(withPromisedCollections(memory, ['first']).collection(projections[0].collection).immediate).toBeUndefined();
  });
});

describe('replay() and provenance', () => {
  // A file store that reads every long range ahead on its thread, where events can come without provenance.
  const dir = mkdtempSync(join(tmpdir(), 'replay-provenance-'));
  let events: SqliteEventStore;

  interface Seen extends ReadDoc {
    fields: string[];
    id?: string;
    actor?: unknown;
  }
  const sees = (name: string): Projection<Seen> => ({
    name,
    collection: { name, indexes: [] },
    handles: ['Counted'],
    keys: (event) => [String(event.position)],
    evolve: (_doc, event, key) => ({ _id: key, created_at: event.createdAt.toISOString(), fields: Object.keys(event).sort() }),
  });
  const provenance: ProvenanceProjection<Seen> = {
    name: 'provenance',
    collection: { name: 'provenance', indexes: [] },
    provenance: true,
    handles: ['Counted'],
    keys: (event) => [String(event.position)],
    evolve: (_doc, event, key) => ({ _id: key, created_at: event.createdAt.toISOString(), fields: [], id: event.id, actor: event.metadata.actor }),
  };

  beforeAll(async () => {
    events = new SqliteEventStore({ path: join(dir, 'events.sqlite'), readAheadFrom: 0 });
    for (let i = 0; i < 5; i += 1) await events.append(`s-${i}`, [{ type: 'Counted', data: { key: 'k' }, metadata: { actor: `actor-${i}` } }], 'no_stream');
  });

  afterAll(async () => {
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives projections the events without their id, revision and metadata, and whole ones while a projection reads them', async () => {
    const recorded = await events.readAll();
    const lean = new MemoryReadStore();
    await replay(events, lean, [sees('plain')]);
    const plain = await lean.collection<Seen>(sees('plain').collection).list({ limit: 10 });
    expect(plain.map((d) => d.fields)).toEqual(recorded.map(() => ['createdAt', 'data', 'position', 'streamName', 'type']));

    const whole = new MemoryReadStore();
    await replay(events, whole, [sees('plain'), provenance as ProvenanceProjection]);
    const read = await whole.collection<Seen>(provenance.collection).list({ limit: 10 });
    expect(read.map((d) => [d.id, d.actor])).toEqual(recorded.map((e) => [e.id, e.metadata.actor]));
    expect(read.map((d) => d.id)).toEqual(expect.arrayContaining([expect.stringMatching(/^[0-9a-f-]{36}$/)]));
  });
});

describe('ProjectionRunner after a dropped subscription', () => {
  it('is healthy again once it has read up to the head, with no new event needed', async () => {
    const events = new SqliteEventStore({ path: ':memory:' });
    await events.append('s-a', [{ type: 'Counted', data: { key: 'a' } }], 'any');
    let subscriptions = 0;
    // The first subscription drops at once, as a server connection does; the next ones are the store's own.
    const dropping = new Proxy(events, {
      get(target, name, receiver) {
        if (name !== 'subscribe') return Reflect.get(target, name, receiver);
        return (after?: bigint): Subscription => {
          subscriptions += 1;
          if (subscriptions > 1) return target.subscribe(after);
          return { close: async () => undefined, [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('connection dropped')) }) };
        };
      },
    }) as EventStore;
    const runner = new ProjectionRunner(dropping, new MemoryReadStore(), [tally('first')]);
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await runner.start();
      await eventually(async () => expect(runner.lastFailure?.message).toBe('connection dropped'));
      await eventually(async () => expect(subscriptions).toBe(2), 5000);
      expect(runner.lastFailure).toBeUndefined();
      expect(runner.processed).toBe(await events.headPosition());
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('connection dropped'));
    } finally {
      logged.mockRestore();
      await runner.stop();
      await events.close();
    }
  });
});

describe('ProjectionRunner on collections that take changes in bulk', () => {
  it('applies a live event of many documents with one bulk change, and catches up in bulk', async () => {
    const events = new SqliteEventStore({ path: ':memory:' });
    const many: Projection<Tally> = {
      ...tally('many'),
      handles: ['Bank'],
      keys: (event) => (event.data as { keys: string[] }).keys,
      evolve: (doc, event, key) => ({ _id: key, created_at: event.createdAt.toISOString(), count: (doc?.count ?? 0) + 1, last: String(event.position) }),
    };
    for (let i = 0; i < 5; i += 1) await events.append(`b-${i}`, [{ type: 'Bank', data: { keys: [`k${i}`] } }], 'no_stream');
    const memory = new MemoryReadStore();
    const calls: Record<string, number> = {};
    const runner = new ProjectionRunner(events, withPromisedCollections(memory, ['many'], calls), [many]);
    try {
      await runner.start();
      expect(calls).toEqual({ applyMany: 1 });
      const keys = Array.from({ length: 3000 }, (_, i) => `code-${i}`);
      const { position } = await events.append('bank', [{ type: 'Bank', data: { keys } }], 'no_stream');
      await runner.waitFor(position);
      expect(runner.processed).toBe(position);
      expect(calls).toEqual({ applyMany: 2 });
      expect(await memory.collection(many.collection).count({})).toBe(3005);
    } finally {
      await runner.stop();
      await events.close();
    }
  });
});

describe('two projections writing one collection', () => {
  interface Marked extends ReadDoc {
    count: number;
    marked?: boolean;
  }
  const collection = { name: 'shared', indexes: [] };
  const counting: Projection<Marked> = {
    name: 'counting',
    collection,
    handles: ['Counted'],
    keys: () => ['a'],
    evolve: (doc, event) => ({ ...(doc ?? { _id: 'a', created_at: event.createdAt.toISOString() }), count: (doc?.count ?? 0) + 1 }),
  };
  const marking: Projection<Marked> = {
    name: 'marking',
    collection,
    handles: ['Marked'],
    keys: () => ['a'],
    evolve: (doc) => (doc ? { ...doc, marked: true } : null),
  };

  it('applies both in event order, one by one and in bulk through a store that hands each its own collection object', async () => {
    const events = new SqliteEventStore({ path: ':memory:' });
    for (const type of ['Counted', 'Marked', 'Counted']) await events.append('s', [{ type, data: {} }], 'any');
    const one = new MemoryReadStore();
    await replay(events, one, [counting, marking]);
    const bulk = new MemoryReadStore();
    const calls: Record<string, number> = {};
    await replay(events, withPromisedCollections(bulk, ['shared'], calls), [counting, marking]);
    await events.close();
    expect(calls).toEqual({ applyMany: 1 });
    for (const store of [one, bulk]) expect(await store.collection(collection).get('a')).toMatchObject({ count: 2, marked: true });
  });
});
