/**
 * Embedded read models: documents in memory, rebuilt from the event store at start-up.
 * Each collection keeps its documents in (created_at, _id) order, plus one ordered list per
 * declared equality index, so list queries touch only the documents they return.
 */
import { CollectionDef, ListQuery, positionKey, ReadCollection, ReadDoc, ReadStore, Scalar } from './read-store.js';

interface Key {
  c: string;
  id: string;
}

function compareKey(a: Key, b: Key): number {
  if (a.c !== b.c) return a.c < b.c ? -1 : 1;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}

/** Keys in ascending order; appends (the common case: new documents) are O(1). */
class OrderedKeys {
  readonly keys: Key[] = [];

  insert(key: Key): void {
    const keys = this.keys;
    if (keys.length === 0 || compareKey(keys[keys.length - 1], key) < 0) {
      keys.push(key);
      return;
    }
    keys.splice(this.lowerBound(key), 0, key);
  }

  remove(key: Key): void {
    const at = this.lowerBound(key);
    if (at < this.keys.length && compareKey(this.keys[at], key) === 0) this.keys.splice(at, 1);
  }

  /** First index whose key is >= the given one. */
  lowerBound(key: Key): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKey(this.keys[mid], key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose created_at is >= c. */
  lowerBoundTime(c: string): number {
    return this.lowerBound({ c, id: '' });
  }
}

function valueOf(doc: ReadDoc, field: string): Scalar {
  const value = doc[field];
  return value === undefined ? null : (value as Scalar);
}

function indexKey(fields: readonly string[], values: (field: string) => Scalar): string {
  return JSON.stringify(fields.map(values));
}

class MemoryCollection<T extends ReadDoc> implements ReadCollection<T> {
  private docs = new Map<string, T>();
  private all = new OrderedKeys();
  private readonly indexes: { fields: readonly string[]; lists: Map<string, OrderedKeys> }[];

  constructor(def: CollectionDef) {
    this.indexes = def.indexes.map((fields) => ({ fields, lists: new Map() }));
  }

  reset(): void {
    this.docs = new Map();
    this.all = new OrderedKeys();
    for (const index of this.indexes) index.lists.clear();
  }

  async get(id: string): Promise<T | null> {
    return this.docs.get(id) ?? null;
  }

  async findOne(where: Record<string, Scalar>): Promise<T | null> {
    const [first] = await this.list({ where, limit: 1 });
    return first ?? null;
  }

  async put(doc: T, position: bigint): Promise<boolean> {
    const pos = positionKey(position);
    const previous = this.docs.get(doc._id);
    if (previous?._pos !== undefined && previous._pos >= pos) return false;
    const stored = { ...doc, _pos: pos } as T;
    this.docs.set(doc._id, stored);
    if (!previous) this.index(stored);
    else this.reindex(previous, stored);
    return true;
  }

  async delete(id: string, position: bigint): Promise<boolean> {
    const previous = this.docs.get(id);
    if (!previous || (previous._pos !== undefined && previous._pos >= positionKey(position))) return false;
    this.unindex(previous);
    this.docs.delete(id);
    return true;
  }

  async list(query: ListQuery): Promise<T[]> {
    const out: T[] = [];
    let skip = query.after ? 0 : (query.offset ?? 0);
    for (const doc of this.scan(query)) {
      if (skip > 0) {
        skip -= 1;
        continue;
      }
      out.push(doc);
      if (out.length >= query.limit) break;
    }
    return out;
  }

  async count(query: Omit<ListQuery, 'limit' | 'offset' | 'after'>): Promise<number> {
    let n = 0;
    for (const _ of this.scan(query)) n += 1;
    return n;
  }

  private *scan(query: Omit<ListQuery, 'limit' | 'offset'>): Generator<T> {
    const where = query.where ?? {};
    const { keys, residual } = this.pick(where);
    let start = 0;
    if (query.after) {
      const after = { c: query.after.created_at, id: query.after._id };
      start = keys.lowerBound(after) + (this.isAt(keys, after) ? 1 : 0);
    }
    if (query.createdFrom !== undefined) start = Math.max(start, keys.lowerBoundTime(query.createdFrom));
    const prefix = query.prefix ? query.prefix.value.toLowerCase() : undefined;
    for (let i = start; i < keys.keys.length; i += 1) {
      const key = keys.keys[i];
      if (query.createdBefore !== undefined && key.c >= query.createdBefore) return;
      const doc = this.docs.get(key.id)!;
      if (!residual.every(([field, value]) => valueOf(doc, field) === value)) continue;
      if (prefix !== undefined && !query.prefix!.fields.some((f) => String(doc[f] ?? '').startsWith(prefix))) continue;
      yield doc;
    }
  }

  private isAt(keys: OrderedKeys, key: Key): boolean {
    const at = keys.lowerBound(key);
    return at < keys.keys.length && compareKey(keys.keys[at], key) === 0;
  }

  /** The most selective index whose fields are all constrained, and the filters left over. */
  private pick(where: Record<string, Scalar>): { keys: OrderedKeys; residual: [string, Scalar][] } {
    const constrained = Object.keys(where);
    let best: (typeof this.indexes)[number] | undefined;
    for (const index of this.indexes) {
      if (index.fields.every((f) => constrained.includes(f)) && (!best || index.fields.length > best.fields.length)) {
        best = index;
      }
    }
    if (!best) return { keys: this.all, residual: Object.entries(where) };
    const keys = best.lists.get(indexKey(best.fields, (f) => where[f])) ?? new OrderedKeys();
    return { keys, residual: Object.entries(where).filter(([f]) => !best!.fields.includes(f)) };
  }

  private index(doc: T): void {
    const key = { c: doc.created_at, id: doc._id };
    this.all.insert(key);
    for (const index of this.indexes) {
      const k = indexKey(index.fields, (f) => valueOf(doc, f));
      let list = index.lists.get(k);
      if (!list) index.lists.set(k, (list = new OrderedKeys()));
      list.insert(key);
    }
  }

  /**
   * An update moves the document only in the lists whose key changed: most updates change no
   * indexed field, and removing from an ordered list costs a splice.
   */
  private reindex(previous: T, next: T): void {
    if (previous.created_at !== next.created_at) {
      this.unindex(previous);
      this.index(next);
      return;
    }
    const key = { c: next.created_at, id: next._id };
    for (const index of this.indexes) {
      const before = indexKey(index.fields, (f) => valueOf(previous, f));
      const after = indexKey(index.fields, (f) => valueOf(next, f));
      if (before === after) continue;
      const list = index.lists.get(before);
      list?.remove(key);
      if (list && list.keys.length === 0) index.lists.delete(before);
      let target = index.lists.get(after);
      if (!target) index.lists.set(after, (target = new OrderedKeys()));
      target.insert(key);
    }
  }

  private unindex(doc: T): void {
    const key = { c: doc.created_at, id: doc._id };
    this.all.remove(key);
    for (const index of this.indexes) {
      const k = indexKey(index.fields, (f) => valueOf(doc, f));
      const list = index.lists.get(k);
      list?.remove(key);
      if (list && list.keys.length === 0) index.lists.delete(k);
    }
  }
}

export class MemoryReadStore implements ReadStore {
  readonly durable = false;
  private readonly collections = new Map<string, MemoryCollection<ReadDoc>>();
  private readonly checkpoints = new Map<string, bigint>();

  collection<T extends ReadDoc = ReadDoc>(def: CollectionDef): ReadCollection<T> {
    let collection = this.collections.get(def.name);
    if (!collection) this.collections.set(def.name, (collection = new MemoryCollection(def)));
    return collection as unknown as ReadCollection<T>;
  }

  async getCheckpoint(name: string): Promise<bigint | undefined> {
    return this.checkpoints.get(name);
  }

  async setCheckpoint(name: string, position: bigint): Promise<void> {
    this.checkpoints.set(name, position);
  }

  async clear(): Promise<void> {
    for (const collection of this.collections.values()) collection.reset();
    this.checkpoints.clear();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
