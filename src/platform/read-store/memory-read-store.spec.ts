/**
 * The embedded store against a model: random sequences of puts, deletes and queries on a small
 * key space (so that documents collide on ids, created_at, index values and positions), each
 * answer compared with a plain filter-and-sort over the documents the model holds.
 */
import fc from 'fast-check';
import { MemoryReadStore } from './memory-read-store.js';
import { CollectionDef, ListQuery, ReadDoc, Scalar, WalkCursor } from './read-store.js';

const def: CollectionDef = { name: 'model', indexes: [['m'], ['m', 'e'], ['k'], ['m', 'k', 'e']] };

const TIMES = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.001Z', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z'];
const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
const times = fc.constantFrom(...TIMES);
/** Values that === tells apart but a careless key would not: 1, '1' and true; null and absent. */
const values = fc.constantFrom<Scalar | undefined>(1, '1', null, undefined, true);
const fields = ['m', 'e', 'k', 'n'] as const;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const positions = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 1n, max: 40n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: MAX_SAFE - 2n, max: MAX_SAFE + 4n }) },
);

const docs = fc
  .record({ _id: ids, created_at: times, m: values, e: values, k: values, n: values, s: fc.constantFrom('an', 'anna', 'bo', 'a.', null) })
  .map((d) => {
    // undefined stands for a field the document does not have.
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(d)) if (value !== undefined) out[key] = value;
    return out as ReadDoc;
  });

const wheres = fc
  .subarray([...fields], { maxLength: 3 })
  .chain((keys) => fc.tuple(...keys.map(() => values)).map((vs) => Object.fromEntries(keys.map((k, i) => [k, vs[i] ?? null])) as Record<string, Scalar>));

/** Present in a quarter of the queries, so that most queries find something. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

const queries: fc.Arbitrary<ListQuery> = fc.record({
  where: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 4, arbitrary: wheres }),
  from: sometimes(times),
  before: sometimes(times),
  prefix: sometimes(fc.record({ fields: fc.constantFrom(['s'], ['s', 'e']), value: fc.constantFrom('A', 'an', 'a.', 'b', '') })),
  after: sometimes(fc.record({ at: times, _id: fc.constantFrom('a', 'c', 'dd', 'h', '') })),
  offset: sometimes(fc.nat(5)),
  limit: fc.nat(6),
});

type Op = { put: ReadDoc; at: bigint } | { delete: string; at: bigint } | { list: ListQuery } | { count: ListQuery } | { findOne: Record<string, Scalar> };
const ops = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ put: docs, at: positions }) },
    { weight: 1, arbitrary: fc.record({ delete: ids, at: positions }) },
    { weight: 3, arbitrary: fc.record({ list: queries }) },
    { weight: 1, arbitrary: fc.record({ count: queries }) },
    { weight: 1, arbitrary: fc.record({ findOne: wheres }) },
  ) as fc.Arbitrary<Op>,
  { minLength: 10, maxLength: 80 },
);

/** The contract, said plainly. */
class Model {
  readonly docs = new Map<string, { doc: ReadDoc; at: bigint }>();
  /** Deleted documents' deletion positions: an older put does not bring one back. */
  readonly gone = new Map<string, bigint>();

  put(doc: ReadDoc, at: bigint): boolean {
    const held = this.docs.get(doc._id);
    if (held && held.at >= at) return false;
    const deleted = this.gone.get(doc._id);
    if (deleted !== undefined && deleted >= at) return false;
    this.gone.delete(doc._id);
    this.docs.set(doc._id, { doc, at });
    return true;
  }

  delete(id: string, at: bigint): boolean {
    const held = this.docs.get(id);
    if (!held || held.at >= at) return false;
    this.docs.delete(id);
    this.gone.set(id, at);
    return true;
  }

  matching(q: Omit<ListQuery, 'limit'>, withCursor: boolean): ReadDoc[] {
    const value = (d: ReadDoc, f: string) => (d[f] === undefined ? null : d[f]);
    return [...this.docs.values()]
      .map((h) => h.doc)
      .filter((d) => Object.entries(q.where ?? {}).every(([f, v]) => value(d, f) === v))
      .filter((d) => q.from === undefined || d.created_at >= q.from)
      .filter((d) => q.before === undefined || d.created_at < q.before)
      .filter((d) => !q.prefix || q.prefix.fields.some((f) => String(d[f] ?? '').startsWith(q.prefix!.value.toLowerCase())))
      .filter((d) => !withCursor || !q.after || d.created_at > q.after.at || (d.created_at === q.after.at && d._id > q.after._id))
      .sort((a, b) => (a.created_at !== b.created_at ? (a.created_at < b.created_at ? -1 : 1) : a._id < b._id ? -1 : 1));
  }

  list(q: ListQuery): ReadDoc[] {
    const offset = q.after ? 0 : (q.offset ?? 0);
    return this.matching(q, true).slice(offset, offset + Math.max(0, q.limit));
  }
}

describe('MemoryReadStore against a model', () => {
  it('answers every sequence of writes and queries as the contract says', async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (sequence) => {
        const store = new MemoryReadStore();
        const c = store.collection(def);
        const model = new Model();
        for (const op of sequence) {
          if ('put' in op) expect(await c.put(op.put, op.at)).toBe(model.put(op.put, op.at));
          else if ('delete' in op) expect(await c.delete(op.delete, op.at)).toBe(model.delete(op.delete, op.at));
          else if ('list' in op) expect(await c.list(op.list)).toEqual(model.list(op.list));
          else if ('count' in op) {
            const { after: _a, offset: _o, limit: _l, ...filters } = op.count;
            expect(await c.count(filters)).toBe(model.matching(filters, false).length);
          } else expect(await c.findOne(op.findOne)).toEqual(model.list({ where: op.findOne, limit: 1 })[0] ?? null);
        }
        for (const { doc } of model.docs.values()) expect(await c.get(doc._id)).toBe(doc);
        expect(await c.count({})).toBe(model.docs.size);
      }),
      { numRuns: 1_000, seed: 20261122 },
    );
  });

  it('keeps order and index membership on long lists with out-of-order writes and moves', async () => {
    const store = new MemoryReadStore();
    const c = store.collection(def);
    const model = new Model();
    const random = fc.sample(fc.tuple(fc.nat(400), fc.nat(50), fc.constantFrom(1, 2, 3), fc.boolean()), { numRuns: 5_000, seed: 7 });
    let at = 0n;
    for (const [id, time, m, late] of random) {
      at += 1n;
      // Mostly increasing created_at, sometimes late; ids revisited, so documents move.
      const created_at = new Date(Date.UTC(2026, 0, 1) + (late ? time : Number(at)) * 1000).toISOString();
      const doc: ReadDoc = { _id: `d${id}`, created_at, m, k: id % 7 };
      expect(await c.put(doc, at)).toBe(model.put(doc, at));
    }
    const filters: Record<string, Scalar>[] = [{}, { m: 1 }, { m: 2, k: 3 }, { k: 0 }, { k: 5, m: 3 }];
    for (const where of filters) {
      expect(await c.list({ where, limit: 10_000 })).toEqual(model.list({ where, limit: 10_000 }));
      expect(await c.count({ where })).toBe(model.matching({ where }, true).length);
    }
  });

  it('keeps a list consumed from its front in order: removals at both ends and in the middle, through the room it keeps and its compaction', async () => {
    const store = new MemoryReadStore();
    const c = store.collection(def);
    const model = new Model();
    const steps = fc.sample(fc.tuple(fc.nat(99), fc.nat(3_000), fc.constantFrom(1, 2)), { numRuns: 12_000, seed: 11 });
    const due = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
    let at = 0n;
    let next = 0;
    let oldest = 0;
    const check = async () => {
      for (const where of [{}, { m: 1 }, { m: 2 }] as Record<string, Scalar>[]) {
        expect(await c.list({ where, limit: 100_000 })).toEqual(model.list({ where, limit: 100_000 }));
        expect(await c.list({ where, from: due(oldest + 40), limit: 7 })).toEqual(model.list({ where, from: due(oldest + 40), limit: 7 }));
      }
    };
    for (const [roll, pick, m] of steps) {
      at += 1n;
      // A queue: mostly new documents due last and the first due taken away; sometimes one is
      // taken from the middle, one is put back due early (a retry sooner than the rest), or moved.
      if (roll < 45) {
        const doc: ReadDoc = { _id: `q${next}`, created_at: due(next), m };
        next += 1;
        expect(await c.put(doc, at)).toBe(model.put(doc, at));
      } else if (roll < 90) {
        const first = (await c.list({ limit: 1 }))[0];
        if (first) expect(await c.delete(first._id, at)).toBe(model.delete(first._id, at));
        if (first) oldest = Math.max(oldest, Date.parse(first.created_at) / 1000 - Date.UTC(2026, 0, 1) / 1000);
      } else if (roll < 95) {
        const id = `q${pick % Math.max(1, next)}`;
        expect(await c.delete(id, at)).toBe(model.delete(id, at));
      } else {
        const doc: ReadDoc = { _id: `q${pick % Math.max(1, next)}`, created_at: due(oldest + (pick % 50)), m };
        expect(await c.put(doc, at)).toBe(model.put(doc, at));
      }
      if (at % 1_000n === 0n) await check();
    }
    await check();
    expect(await c.count({})).toBe(model.docs.size);
  });

  it('holds one frozen empty array for every document and leaves the documents equal to what was put', async () => {
    const store = new MemoryReadStore();
    const c = store.collection(def);
    const other = store.collection({ name: 'other', indexes: [['m']] });
    const email = 'somebody@example.com';
    await c.put({ _id: 'a', created_at: TIMES[0], m: 1, tags: [], email: `${email}`, short: 'x' }, 1n);
    await other.put({ _id: 'b', created_at: TIMES[1], m: 1, tags: [], email: [email].join('') }, 2n);
    await c.put({ _id: 'a', created_at: TIMES[0], m: 2, tags: [], email, short: 'x' }, 3n);
    const a = (await c.get('a'))!;
    const b = (await other.get('b'))!;
    expect(a).toEqual({ _id: 'a', created_at: TIMES[0], m: 2, tags: [], email, short: 'x' });
    expect(b).toEqual({ _id: 'b', created_at: TIMES[1], m: 1, tags: [], email });
    expect(a.tags).toBe(b.tags);
    expect(Object.isFrozen(a.tags)).toBe(true);
    expect(() => (a.tags as unknown[]).push(1)).toThrow(TypeError);
    expect(await c.list({ where: { m: 2 }, limit: 5 })).toEqual([a]);
  });

  it('gives back every number exactly as put, whichever numbers were shared before it (ids past 2^31, fractions, -0, NaN)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.double(), fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(-0, 0, NaN, 49.5, -(2 ** 40))), {
          minLength: 1,
          maxLength: 60,
        }),
        async (numbers) => {
          const store = new MemoryReadStore();
          const c = store.collection({ name: 'numbers', indexes: [['n']] });
          // Many numbers first, so that the pool's places are taken and retaken.
          for (let i = 0; i < 20_000; i += 1) await c.put({ _id: `w${i}`, created_at: TIMES[0], n: 2 ** 33 + i * 4097, f: i + 0.5 }, BigInt(i + 1));
          for (const [i, n] of numbers.entries()) {
            await c.put({ _id: `d${i}`, created_at: TIMES[1], n, f: n }, BigInt(30_000 + i));
            // A new version as projections make one: a copy with a change.
            const first = (await c.get(`d${i}`))!;
            await c.put({ ...first, g: n }, BigInt(60_000 + i));
          }
          for (const [i, n] of numbers.entries()) {
            const doc = (await c.get(`d${i}`))!;
            expect([Object.is(doc.n, n), Object.is(doc.f, n), Object.is(doc.g, n)]).toEqual([true, true, true]);
          }
        },
      ),
      { numRuns: 10 },
    );
  });
});

describe('MemoryReadStore walks', () => {
  type WalkOp = { create: { at: number; m: number } } | { update: number } | { delete: number } | { walk: number };
  const walkOps = fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.record({ create: fc.record({ at: fc.nat(TIMES.length - 1), m: fc.constantFrom(1, 1, 2) }) }) },
      { weight: 2, arbitrary: fc.record({ update: fc.nat(40) }) },
      { weight: 1, arbitrary: fc.record({ delete: fc.nat(40) }) },
      { weight: 3, arbitrary: fc.record({ walk: fc.integer({ min: 1, max: 3 }) }) },
    ) as fc.Arbitrary<WalkOp>,
    { minLength: 5, maxLength: 80 },
  );

  it('a walk going on from page to page shows every matching document once, however out of order they are recorded, changed or deleted meanwhile', async () => {
    await fc.assert(
      fc.asyncProperty(walkOps, fc.boolean(), async (sequence, settledFirst) => {
        const store = new MemoryReadStore();
        const c = store.collection(def);
        // Settled lists (a store that has answered a query) and deferred ones (a replay) alike.
        if (settledFirst) await c.list({ limit: 1 });
        let position = 0n;
        const made: ReadDoc[] = [];
        const deleted = new Set<string>();
        const seen = new Map<string, number>();
        let cursor: WalkCursor | undefined;
        const walk = async (limit: number) => {
          const page = await c.walk({ where: { m: 1 }, limit, after: cursor });
          expect(page.docs.length).toBeLessThanOrEqual(limit);
          for (const doc of page.docs) {
            expect(doc.m).toBe(1);
            seen.set(doc._id, (seen.get(doc._id) ?? 0) + 1);
          }
          if (page.next) cursor = page.next;
          return page.more;
        };
        for (const op of sequence) {
          if ('create' in op) {
            // Ids grow with creation, created_at does not: most documents are recorded out of order.
            const doc: ReadDoc = { _id: `d${String(made.length).padStart(3, '0')}`, created_at: TIMES[op.create.at], m: op.create.m, e: 0 };
            made.push(doc);
            await c.put(doc, (position += 1n));
          } else if ('update' in op) {
            const doc = made[op.update % Math.max(1, made.length)];
            if (doc && !deleted.has(doc._id)) await c.put({ ...doc, e: Number(position) }, (position += 1n));
          } else if ('delete' in op) {
            const doc = made[op.delete % Math.max(1, made.length)];
            if (doc && !deleted.has(doc._id)) {
              deleted.add(doc._id);
              await c.delete(doc._id, (position += 1n));
            }
          } else await walk(op.walk);
        }
        for (let pages = 0; (await walk(2)) && pages < 200; pages += 1);
        for (const [id, times] of seen) expect({ id, times }).toEqual({ id, times: 1 });
        for (const doc of made) if (doc.m === 1 && !deleted.has(doc._id)) expect({ id: doc._id, seen: seen.has(doc._id) }).toEqual({ id: doc._id, seen: true });
      }),
      { numRuns: 500, seed: 20261125 },
    );
  });
});
