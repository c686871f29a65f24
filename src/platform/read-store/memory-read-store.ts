/**
 * Embedded read models: documents in memory, rebuilt from the event store at start-up. Per
 * collection, a map by id, a list in (order field, _id) order and one tree per declared index share
 * one entry per document; documents are kept as put, never copied (nobody mutates one once put).
 * docs/architecture.md explains the layout and how a query walks it.
 */
import {
  byOrder,
  CollectionDef,
  compareIds,
  DocChange,
  ImmediateCollection,
  ListQuery,
  orderOf,
  ReadCollection,
  ReadDoc,
  ReadStore,
  Scalar,
  walkPage,
  WalkPage,
  WalkQuery,
} from './read-store.js';
import { NULL_ALWAYS_FOR, NULL_EVERY, ValuePool } from './memory-value-pool.js';
import {
  byRecording,
  Entry,
  entryOrder,
  firstAtOrAfter,
  insertSorted,
  lowerBound,
  matchesQuery,
  Position,
  precedes,
  precedesOrIs,
  removeSorted,
  SortedEntries,
  toPosition,
  upperBound,
  valueOf,
} from './memory-entries.js';
import { Index } from './memory-index.js';

type Filters = Omit<ListQuery, 'limit' | 'offset'>;

/** The list a query walks, its window in it, and the tests left for each document. */
interface Plan<T extends ReadDoc> {
  list: SortedEntries<T>;
  start: number;
  end: number;
  /** `where` fields the list does not already guarantee, with their values. */
  fields: string[];
  values: Scalar[];
  prefix: { fields: readonly string[]; value: string } | undefined;
}

class MemoryCollection<T extends ReadDoc> implements ReadCollection<T> {
  private byId = new Map<string, Entry<T>>();
  /**
   * The last id looked up and its entry (undefined: none), kept equal to byId's by every change:
   * a projection gets a document and then puts its next version, and the put finds the entry
   * here instead of hashing the id a second time (the replay makes millions of these pairs).
   */
  private lastId: string | undefined;
  private lastEntry: Entry<T> | undefined;
  /** Documents put so far (ValuePool.compact shows V8 a null in the first ones). */
  private puts = 0;
  /**
   * The lists (`all` and the index buckets) are not built: the collection is being loaded from
   * empty (a start-up's replay), its documents are only in byId, and the lists are built in one
   * pass by `settle()` or by the first query. A replay puts most documents twice or more (a
   * purchase, then its conversion), and each later version moved the entry in the lists.
   */
  private deferred = true;
  /**
   * Every document in order, for the queries no index covers. Kept from the first such query
   * (or from the start, for a collection without indexes): the big collections are always
   * queried by merchant, and a list of all their documents was 8 to 12 bytes per document.
   */
  private all: SortedEntries<T> | undefined;
  private readonly indexes: Index<T>[];
  /**
   * Entries created (or moved by a new order value) with an (order value, _id) before that of a
   * document created earlier (recorded late, see WalkQuery), in the order of those changes, and
   * their positions: the only documents a walk's cursor can have passed before they were there.
   * Entries deleted since are dropped once the deletions outnumber them.
   */
  private late: Entry<T>[] = [];
  private lateBorn: Position[] = [];
  private deletions = 0;
  /** Positions of deleted documents' deletions (tombstones), so that a replayed older put does not bring one back. */
  private gone = new Map<string, Position>();
  /** The document with the greatest (order value, _id) created so far. */
  private highest: ReadDoc | undefined;
  /** The position of the last change applied: every document created at or before it is here. */
  private through: Position = 0;

  readonly order: string;

  constructor(
    def: CollectionDef,
    private readonly pool: ValuePool,
  ) {
    this.order = orderOf(def);
    // An index of no fields would hold every document, like `all`.
    this.indexes = def.indexes.filter((fields) => fields.length > 0).map((fields) => new Index<T>(fields, this.order));
  }

  /** get, put and delete answered at once; the promise-returning ones below are these. */
  readonly immediate: ImmediateCollection<T> = {
    get: (id) => this.getNow(id),
    put: (doc, position) => this.putNow(doc, position),
    delete: (id, position) => this.deleteNow(id, position),
  };

  reset(): void {
    this.byId = new Map();
    this.lastId = undefined;
    this.lastEntry = undefined;
    this.deferred = true;
    this.all = undefined;
    for (const index of this.indexes) index.root = new Map();
    this.late = [];
    this.lateBorn = [];
    this.deletions = 0;
    this.gone = new Map();
    this.highest = undefined;
    this.through = 0;
  }

  async get(id: string): Promise<T | null> {
    return this.getNow(id);
  }

  private getNow(id: string): T | null {
    const entry = this.entryOf(id);
    return entry === undefined ? null : entry.doc;
  }

  private entryOf(id: string): Entry<T> | undefined {
    if (id === this.lastId) return this.lastEntry;
    this.lastId = id;
    return (this.lastEntry = this.byId.get(id));
  }

  async findOne(where: Record<string, Scalar>): Promise<T | null> {
    return this.select({ where }, 0, 1)[0] ?? null;
  }

  async put(doc: T, position: bigint): Promise<boolean> {
    return this.putNow(doc, position);
  }

  /** Whether this put shows V8 a null in the document's number fields (ValuePool.compact). */
  private showNull(): boolean {
    this.puts += 1;
    return this.puts <= NULL_ALWAYS_FOR || this.puts % NULL_EVERY === 0;
  }

  private putNow(doc: T, position: bigint): boolean {
    const pos = toPosition(position);
    if (pos > this.through) this.through = pos;
    const entry = this.entryOf(doc._id);
    if (entry === undefined) {
      const deletedAt = this.gone.size === 0 ? undefined : this.gone.get(doc._id);
      if (deletedAt !== undefined) {
        if (deletedAt >= pos) return false;
        this.gone.delete(doc._id);
      }
      this.pool.compact(doc, undefined, this.showNull());
      const created = new Entry(doc, pos);
      this.byId.set(doc._id, created);
      this.lastEntry = created;
      this.noteRecorded(created, doc, pos);
      if (!this.deferred) this.index(created, doc);
      return true;
    }
    if (entry.pos >= pos) return false;
    entry.pos = pos;
    const previous = entry.doc;
    if (previous === doc) return true;
    this.pool.compact(doc, previous, this.showNull());
    // A new order value is a new place in the lists (coupons take the time they were associated).
    const moved = previous[this.order] !== doc[this.order];
    if (moved) this.noteRecorded(entry, doc, pos);
    if (this.deferred) {
      entry.doc = doc;
      return true;
    }
    if (moved) {
      this.unindex(entry, previous);
      entry.doc = doc;
      this.index(entry, doc);
      return true;
    }
    // Same (order value, _id): the entry keeps its place in every list it stays in.
    entry.doc = doc;
    for (const index of this.indexes) {
      if (!index.moved(previous, doc)) continue;
      index.remove(entry, previous);
      index.add(entry, doc);
    }
    return true;
  }

  async delete(id: string, position: bigint): Promise<boolean> {
    return this.deleteNow(id, position);
  }

  async applyMany(changes: readonly DocChange<T>[]): Promise<void> {
    for (const { id, position, change } of changes) {
      const entry = this.entryOf(id);
      // Seen already (a tombstone's position too): skipped, as the put or delete would be refused.
      const seen = entry?.pos ?? this.gone.get(id);
      if (seen !== undefined && seen >= toPosition(position)) continue;
      const doc = entry === undefined ? null : entry.doc;
      const next = change(doc);
      if (next) this.putNow(next, position);
      else if (doc) this.deleteNow(id, position);
    }
  }

  private deleteNow(id: string, position: bigint): boolean {
    const pos = toPosition(position);
    if (pos > this.through) this.through = pos;
    const entry = this.entryOf(id);
    if (entry === undefined || entry.pos >= pos) return false;
    if (!this.deferred) this.unindex(entry, entry.doc);
    this.byId.delete(id);
    this.gone.set(id, pos);
    this.lastEntry = undefined;
    // Drops the deleted from the late entries once deletions outnumber them (amortised O(1) each).
    if ((this.deletions += 1) > this.late.length && this.late.length > 0) {
      const kept = this.late.map((e, i) => [e, this.lateBorn[i]] as const).filter(([e]) => this.byId.get(e.doc._id) === e);
      this.late = kept.map(([e]) => e);
      this.lateBorn = kept.map(([, born]) => born);
      this.deletions = 0;
    }
    return true;
  }

  async walk(query: WalkQuery): Promise<WalkPage<T>> {
    const { limit, after } = query;
    const through = this.through;
    let late: { doc: T; born: Position }[] = [];
    if (after?.through !== undefined) {
      // Recorded after the page that issued the cursor, at or before it: the walk has passed their
      // place. In (position, _id) order; `lateId` goes on among those of one position.
      const since = toPosition(BigInt(after.through));
      const { lateId } = after;
      const taken = new Set<Entry<T>>();
      for (let i = firstAtOrAfter(this.lateBorn, since); i < this.late.length; i += 1) {
        const entry = this.late[i];
        const born = this.lateBorn[i];
        const doc = entry.doc;
        if (born === since && (lateId === undefined || compareIds(doc._id, lateId) <= 0)) continue;
        // Deleted since, or moved twice (it is listed at each move): once.
        if (taken.has(entry) || this.byId.get(doc._id) !== entry || !precedesOrIs(doc, after, this.order) || !matchesQuery(query, doc, this.order)) continue;
        taken.add(entry);
        late.push({ doc, born });
      }
      late.sort(byRecording);
      if (late.length > limit) {
        // More of them than a page holds: the next page goes on from the last one shown.
        late = late.slice(0, limit);
        const last = late[late.length - 1];
        const next = last === undefined ? after : { at: after.at, _id: after._id, through: String(last.born), lateId: last.doc._id };
        return { docs: late.map((l) => l.doc).sort(byOrder(this.order)), more: true, next };
      }
    }
    const room = limit - late.length;
    const cursor = after && { at: after.at, _id: after._id };
    const rest = this.select({ where: query.where, from: query.from, before: query.before, prefix: query.prefix, after: cursor }, 0, room + 1);
    return walkPage(
      late.map((l) => l.doc),
      rest,
      room,
      cursor,
      String(through),
      this.order,
    );
  }

  /** Keeps `highest` and the late entries as `doc` takes its place in the lists: created, or moved by a new order value. */
  private noteRecorded(entry: Entry<T>, doc: T, pos: Position): void {
    const highest = this.highest;
    if (highest === undefined || !precedes(doc, highest[this.order] as string, highest._id, this.order)) this.highest = doc;
    else {
      this.late.push(entry);
      this.lateBorn.push(pos);
    }
  }

  async list(query: ListQuery): Promise<T[]> {
    // Offsets are v1 paging only; with a keyset cursor they are ignored.
    const offset = query.after || !(query.offset! > 0) ? 0 : Math.ceil(query.offset!);
    return this.select(query, offset, query.limit);
  }

  async count(query: Omit<ListQuery, 'limit' | 'offset' | 'after'>): Promise<number> {
    // Every document: no list needed (the list of all of them is made only for queries that walk it).
    const unfiltered =
      (query.where === undefined || Object.keys(query.where).length === 0) && query.from === undefined && query.before === undefined && !query.prefix;
    if (unfiltered) return this.byId.size;
    const plan = this.plan(query);
    if (plan === undefined) return 0;
    if (plan.fields.length === 0 && plan.prefix === undefined) return Math.max(0, plan.end - plan.start);
    let n = 0;
    for (let i = plan.start; i < plan.end; i += 1) if (this.matches(plan, plan.list.at(i).doc)) n += 1;
    return n;
  }

  /** The documents of `query`, in order, after skipping `offset` of them, at most `limit`. */
  private select(query: Filters, offset: number, limit: number): T[] {
    const out: T[] = [];
    if (!(limit > 0)) return out;
    const plan = this.plan(query);
    if (plan === undefined) return out;
    const { list, end } = plan;
    if (plan.fields.length === 0 && plan.prefix === undefined) {
      const stop = Math.min(end, plan.start + offset + limit);
      for (let i = plan.start + offset; i < stop; i += 1) out.push(list.at(i).doc);
      return out;
    }
    let skip = offset;
    for (let i = plan.start; i < end; i += 1) {
      const doc = list.at(i).doc;
      if (!this.matches(plan, doc)) continue;
      if (skip > 0) {
        skip -= 1;
        continue;
      }
      out.push(doc);
      if (out.length >= limit) break;
    }
    return out;
  }

  private matches(plan: Plan<T>, doc: T): boolean {
    const { fields, values, prefix } = plan;
    for (let i = 0; i < fields.length; i += 1) if (valueOf(doc, fields[i]) !== values[i]) return false;
    if (prefix === undefined) return true;
    for (const field of prefix.fields) if (String(doc[field] ?? '').startsWith(prefix.value)) return true;
    return false;
  }

  /**
   * The smallest list that holds every match (an index bucket, or `all`), the window of it
   * that the cursor and the date range leave, and the tests left. Undefined: nothing matches.
   */
  private plan(query: Filters): Plan<T> | undefined {
    this.settle();
    const where = query.where ?? {};
    let list: SortedEntries<T> | undefined;
    let chosen: Index<T> | undefined;
    for (const index of this.indexes) {
      if (!index.covers(where)) continue;
      const bucket = index.lookup(where);
      if (bucket === undefined) return undefined;
      const candidate = bucket instanceof SortedEntries ? bucket : new SortedEntries([bucket]);
      if (list === undefined || candidate.length < list.length) {
        chosen = index;
        list = candidate;
      }
    }
    list ??= this.allEntries();
    const fields: string[] = [];
    const values: Scalar[] = [];
    for (const field of Object.keys(where)) {
      if (chosen?.fields.includes(field)) continue;
      fields.push(field);
      values.push(where[field] === undefined ? null : where[field]);
    }
    let start = 0;
    let end = list.length;
    if (query.after) start = upperBound(list, query.after.at, query.after._id, this.order);
    if (query.from !== undefined) start = Math.max(start, lowerBound(list, query.from, '', this.order));
    if (query.before !== undefined) end = lowerBound(list, query.before, '', this.order);
    const prefix = query.prefix ? { fields: query.prefix.fields, value: query.prefix.value.toLowerCase() } : undefined;
    return { list, start, end, fields, values, prefix };
  }

  /** Builds the lists from byId in one pass, if they are not built; from then on every change keeps them. */
  settle(): void {
    if (!this.deferred) return;
    this.deferred = false;
    const entries = this.sortedEntries();
    this.all = this.indexes.length === 0 ? new SortedEntries(entries) : undefined;
    for (const index of this.indexes) index.build(entries);
  }

  /** Every entry in (order value, _id) order, from byId. */
  private sortedEntries(): Entry<T>[] {
    // Documents arrive in the log's order, which is nearly in order: the sort meets long runs.
    return [...this.byId.values()].sort(entryOrder(this.order));
  }

  /** The list of every document, made at the first query that needs it and kept from then on. */
  private allEntries(): SortedEntries<T> {
    return (this.all ??= new SortedEntries(this.sortedEntries()));
  }

  private index(entry: Entry<T>, doc: T): void {
    if (this.all) insertSorted(this.all, entry, doc, this.order);
    for (const index of this.indexes) index.add(entry, doc);
  }

  private unindex(entry: Entry<T>, doc: T): void {
    if (this.all) removeSorted(this.all, entry, doc, this.order);
    for (const index of this.indexes) index.remove(entry, doc);
  }
}

export class MemoryReadStore implements ReadStore {
  readonly durable = false;
  private readonly collections = new Map<string, MemoryCollection<ReadDoc>>();
  private readonly checkpoints = new Map<string, bigint>();
  private readonly pool = new ValuePool();

  collection<T extends ReadDoc = ReadDoc>(def: CollectionDef): ReadCollection<T> {
    let collection = this.collections.get(def.name);
    if (!collection) this.collections.set(def.name, (collection = new MemoryCollection(def, this.pool)));
    return collection as unknown as ReadCollection<T>;
  }

  async getCheckpoint(name: string): Promise<bigint | undefined> {
    return this.checkpoints.get(name);
  }

  async setCheckpoint(name: string, position: bigint): Promise<void> {
    // Never backwards: a late or replayed save of an older position would make the next start re-apply events.
    const current = this.checkpoints.get(name);
    if (current === undefined || position > current) this.checkpoints.set(name, position);
  }

  /** Builds every collection's lists (see MemoryCollection.settle): a replay's end calls it, so that no query waits for it. */
  settle(): void {
    for (const collection of this.collections.values()) collection.settle();
  }

  async clear(): Promise<void> {
    for (const collection of this.collections.values()) collection.reset();
    this.checkpoints.clear();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
