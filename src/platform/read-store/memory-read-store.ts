/**
 * Embedded read models: documents in memory, rebuilt from the event store at start-up.
 *
 * Per collection:
 *
 *   byId     Map<_id, Entry>. An Entry is { doc, pos }: the document exactly as put, and the
 *            position of the last event applied to it (a number, or a bigint beyond 2^53).
 *   all      Entry[] of every document in (created_at, _id) order, made at the first query that
 *            no index covers (at once for a collection without indexes) and kept from then on.
 *   indexes  one tree per declared index [f1, …, fk]: nested Maps keyed by the documents' raw
 *            values of f1 … fk (a field absent from a document is null), so that 1, '1' and null
 *            are different keys, as they are for `where`'s === (Map keys differ from === only in
 *            NaN, which equals itself), and no key is ever built. A leaf is a bucket: the Entry
 *            itself while one document has those values (unique keys such as (merchant_id,
 *            order_id) are common), else an Entry[] in (created_at, _id) order.
 *
 * One Entry per document is shared by byId and every list that holds it, so an update that
 * keeps created_at only swaps `entry.doc`, and moves the entry only in the indexes whose values
 * it changed. Lists are searched from their end, where new documents (created_at mostly grows)
 * and recently changed ones are: an append is one comparison, anything else a galloping search
 * and a move of the entries on the shorter side of the place (SortedEntries keeps room before
 * its first entry, so lists consumed from the front, such as due deliveries, move nothing).
 *
 * Documents are neither copied nor given a `_pos`: put keeps the caller's object and get/list
 * return it, so nobody may mutate a document once it is put (projections return new documents
 * from evolve(); presenters only read them). What put does change is invisible: it swaps a
 * top-level string for an equal one that other documents already hold (one purchase's
 * documents repeat its timestamp and e-mail addresses, an advocate's repeat its address;
 * measured: 2,156 -> 1,809 bytes of heap per purchase), a number past the small integers for
 * an equal one (ids repeat across a purchase's documents: 1,308 -> 1,079 bytes), and an empty
 * array for one shared frozen empty array, so that each is held once (ValuePool).
 *
 * A collection loaded from empty (the start-up's replay, a point-in-time store) keeps its
 * documents in byId only and builds the lists in one pass, sorted, when the load ends (`settle`,
 * which the projection runner calls after catching up) or at its first query, whichever comes
 * first; from then on every change keeps the lists.
 *
 * A query walks one list: the smallest bucket among the indexes whose fields `where` all
 * constrains (else `all`), from a start found by binary search (keyset cursor, createdFrom) to an
 * end found the same way (createdBefore), testing the other `where` fields and the prefix on each
 * document. Without such tests, offsets, limits and counts are arithmetic on the list.
 */
import { byKey, CollectionDef, compareIds, DocChange, ImmediateCollection, ListQuery, ReadCollection, ReadDoc, ReadStore, Scalar, WalkCursor, walkPage, WalkPage, WalkQuery } from './read-store.js';

type Position = number | bigint;

const MAX_SAFE_POSITION = BigInt(Number.MAX_SAFE_INTEGER);

/** Positions as numbers while they are exact (number and bigint compare exactly with each other). */
function toPosition(position: bigint): Position {
  return position <= MAX_SAFE_POSITION ? Number(position) : position;
}

/** Shortest string worth sharing (JSON.parse already shares string values of up to 10 characters). */
const SHARED_FROM_LENGTH = 11;
/** Distinct strings the pool holds before it starts over (the documents keep theirs). */
const POOL_SIZE = 50_000;
const EMPTY_ARRAY: readonly unknown[] = Object.freeze([]);

/** Places of the number pool (a power of two): a number is shared with the last one that fell in the same place. */
const NUMBER_SLOTS = 16384;
const NUMBER_SLOT_SHIFT = 32 - Math.log2(NUMBER_SLOTS);
/**
 * Puts after which a collection shows V8 a null in its documents' number fields only once in
 * NULL_EVERY (see ValuePool.compact): by then the shapes its projections make have been seen.
 */
const NULL_ALWAYS_FOR = 1024;
const NULL_EVERY = 64;

/**
 * One instance of each recent string or number value, so that equal values in many documents
 * are held once. Strings: a map of the last POOL_SIZE distinct ones. Numbers: a direct-mapped
 * table (a map lookup per field cost 15 % of a replay), which is enough for the numbers that
 * repeat: an id in the documents of one purchase, put one after another, and the merchant's,
 * widget's and advocate's ids.
 */
class ValuePool {
  private held = new Map<string, string>();
  /** Generic elements (nulls), so that the numbers stored are kept as the objects they are. */
  private readonly numbers: (number | null)[] = new Array<number | null>(NUMBER_SLOTS).fill(null);

  share(value: string): string {
    const held = this.held.get(value);
    if (held !== undefined) return held;
    if (this.held.size >= POOL_SIZE) this.held = new Map();
    this.held.set(value, value);
    return value;
  }

  shareNumber(value: number): number {
    // Both 32-bit halves of the integer part, mixed (an id's low bits are mostly a counter at 0).
    const slot = Math.imul((value >>> 0) ^ Math.imul(value / 4294967296, 0x85ebca6b), 0x9e3779b1) >>> NUMBER_SLOT_SHIFT;
    const held = this.numbers[slot];
    if (held === value) return held;
    this.numbers[slot] = value;
    return value;
  }

  /**
   * Replaces `doc`'s top-level strings and numbers with equal pooled ones and its empty arrays
   * with EMPTY_ARRAY. A string equal to the version's it replaces (`previous`) is left alone:
   * projections make the next version as a copy of the last, which holds the same string.
   *
   * Numbers: ids (a time × 1024, past 2^31) and amounts are heap numbers. A field in which V8 has
   * seen only numbers holds each object's own copy (16 bytes), whatever it equals; once a
   * document of that shape has held something else there (`showNull`: null, for a moment), every
   * document of that shape points to a number instead, and equal numbers are held once.
   * Measured on a replay: 16 numbers per purchase (ids repeated across its purchase, conversion
   * and reward, the merchant's and widget's, the amount) took 256 bytes; pooled, about three.
   */
  compact(doc: ReadDoc, previous: ReadDoc | undefined, showNull: boolean): void {
    for (const field in doc) {
      const value = doc[field];
      if (typeof value === 'string') {
        // Equal to the version it replaces: a copy of it ({ ...previous, … }) holds the same string.
        if (value.length < SHARED_FROM_LENGTH || field === '_id' || previous?.[field] === value) continue;
        doc[field] = this.share(value);
      } else if (typeof value === 'number') {
        // Small integers (-0 too) are held in the field. Every other number is stored again, even
        // one equal to previous's: V8 copies numbers when it copies an object ({ ...previous, … }).
        if ((value | 0) === value) continue;
        if (showNull) doc[field] = null;
        doc[field] = this.shareNumber(value);
      } else if (Array.isArray(value) && value.length === 0 && value !== EMPTY_ARRAY) {
        doc[field] = EMPTY_ARRAY;
      }
    }
  }
}

class Entry<T extends ReadDoc> {
  constructor(
    public doc: T,
    public pos: Position,
  ) {}
}

/** A field absent from the document equals null. */
function valueOf(doc: ReadDoc, field: string): unknown {
  const value = doc[field];
  return value === undefined ? null : value;
}

// Ordered lists of entries, by (created_at, _id) of their documents.

/** Free places a list keeps before its first entry before it is copied without them. */
const COMPACT_FROM = 1024;

/**
 * Entries in (created_at, _id) order, in an array that keeps room before its first entry: an
 * insertion or removal moves the entries on the shorter side of its place. Lists consumed from
 * their front (due webhook deliveries, pending rewards, reminders waiting) then cost O(1) per
 * removal, where a splice moved every later entry: measured, 180-300 us per removal from the front
 * of a list of 100,000 (1.9 ms at 1,000,000), paid at every delivery of a webhook backlog.
 */
class SortedEntries<T extends ReadDoc> {
  private items: (Entry<T> | undefined)[];
  private head = 0;

  constructor(entries: Entry<T>[] = []) {
    this.items = entries;
  }

  get length(): number {
    return this.items.length - this.head;
  }

  at(i: number): Entry<T> {
    return this.items[this.head + i]!;
  }

  /** Appends an entry that sorts after every one held. */
  push(entry: Entry<T>): void {
    this.items.push(entry);
  }

  insertAt(at: number, entry: Entry<T>): void {
    const items = this.items;
    const length = items.length - this.head;
    if (at === length) items.push(entry);
    else if (this.head > 0 && at < length / 2) {
      // Into the room before the first entry: the entries before `at` move one place forward.
      const first = --this.head;
      for (let i = first; i < first + at; i += 1) items[i] = items[i + 1];
      items[first + at] = entry;
    } else items.splice(this.head + at, 0, entry);
  }

  removeAt(at: number): void {
    const items = this.items;
    const length = items.length - this.head;
    if (at === length - 1) {
      items.pop();
      if (length === 1) {
        // Empty: the room before the first entry goes too.
        items.length = 0;
        this.head = 0;
      }
    } else if (at < length / 2) {
      // The entries before `at` move one place back, and the first place becomes room.
      for (let i = this.head + at; i > this.head; i -= 1) items[i] = items[i - 1];
      items[this.head] = undefined;
      this.head += 1;
      if (this.head >= COMPACT_FROM && this.head > length / 2) {
        this.items = items.slice(this.head);
        this.head = 0;
      }
    } else items.splice(this.head + at, 1);
  }
}

/** True when `doc` sorts before (c, id). */
function precedes(doc: ReadDoc, c: string, id: string): boolean {
  const dc = doc.created_at;
  return dc < c || (dc === c && compareIds(doc._id, id) < 0);
}

/** First index whose document does not sort before (c, id). */
function lowerBound(list: SortedEntries<ReadDoc>, c: string, id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (precedes(list.at(mid).doc, c, id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose document sorts after (c, id). */
function upperBound(list: SortedEntries<ReadDoc>, c: string, id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const doc = list.at(mid).doc;
    if (doc.created_at < c || (doc.created_at === c && compareIds(doc._id, id) <= 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * First index whose document does not sort before `doc`, searched from the end: new and
 * recently changed documents belong at or near it (one comparison for an append).
 */
function boundFromEnd(list: SortedEntries<ReadDoc>, doc: ReadDoc): number {
  const c = doc.created_at;
  const id = doc._id;
  let hi = list.length;
  let probe = hi - 1;
  for (let step = 1; probe >= 0 && !precedes(list.at(probe).doc, c, id); step *= 2) {
    hi = probe;
    probe -= step;
  }
  let lo = probe < 0 ? 0 : probe + 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (precedes(list.at(mid).doc, c, id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** True when `doc` sorts at or before the cursor's (created_at, _id). */
function precedesOrIs(doc: ReadDoc, cursor: WalkCursor): boolean {
  return doc.created_at < cursor.created_at || (doc.created_at === cursor.created_at && compareIds(doc._id, cursor._id) <= 0);
}

/** First index of `positions` (ascending) holding one not below `position`. */
function firstAtOrAfter(positions: readonly Position[], position: Position): number {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (positions[mid] < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** (recording position, _id) order of late documents. */
function byRecording(a: { doc: ReadDoc; born: Position }, b: { doc: ReadDoc; born: Position }): number {
  if (a.born !== b.born) return a.born < b.born ? -1 : 1;
  return compareIds(a.doc._id, b.doc._id);
}

/** Whether `doc` meets every filter of `query` (its `where`, date range and prefix); for documents not found through a plan. */
function matchesQuery(query: Omit<ListQuery, 'limit' | 'offset' | 'after'>, doc: ReadDoc): boolean {
  const where = query.where ?? {};
  for (const field of Object.keys(where)) if (valueOf(doc, field) !== (where[field] === undefined ? null : where[field])) return false;
  if (query.createdFrom !== undefined && doc.created_at < query.createdFrom) return false;
  if (query.createdBefore !== undefined && doc.created_at >= query.createdBefore) return false;
  if (!query.prefix) return true;
  const value = query.prefix.value.toLowerCase();
  for (const field of query.prefix.fields) if (String(doc[field] ?? '').startsWith(value)) return true;
  return false;
}

/** (created_at, _id) order of two entries' documents. */
function compareEntries(a: Entry<ReadDoc>, b: Entry<ReadDoc>): number {
  return precedes(a.doc, b.doc.created_at, b.doc._id) ? -1 : precedes(b.doc, a.doc.created_at, a.doc._id) ? 1 : 0;
}

/** Inserts `entry`, placed by `doc`'s (created_at, _id). */
function insertSorted<T extends ReadDoc>(list: SortedEntries<T>, entry: Entry<T>, doc: T): void {
  list.insertAt(boundFromEnd(list, doc), entry);
}

/** Removes `entry`, which `doc` (its document when it was inserted) placed. */
function removeSorted<T extends ReadDoc>(list: SortedEntries<T>, entry: Entry<T>, doc: T): void {
  const at = boundFromEnd(list, doc);
  if (at < list.length && list.at(at) === entry) list.removeAt(at);
}

// Index trees. Inner levels are Map<value, Map>, the last level Map<value, Bucket>.

type Bucket<T extends ReadDoc> = Entry<T> | SortedEntries<T>;
type Level = Map<unknown, unknown>;

class Index<T extends ReadDoc> {
  root: Level = new Map();
  private readonly last: number;

  constructor(readonly fields: readonly string[]) {
    this.last = fields.length - 1;
  }

  /** True when `where` constrains every field of the index. */
  covers(where: Record<string, Scalar>): boolean {
    for (const field of this.fields) if (!Object.hasOwn(where, field)) return false;
    return true;
  }

  /** The bucket of the documents whose values are `where`'s, if any. */
  lookup(where: Record<string, Scalar>): Bucket<T> | undefined {
    let node: unknown = this.root;
    for (const field of this.fields) {
      const value = where[field];
      node = (node as Level).get(value === undefined ? null : value);
      if (node === undefined) return undefined;
    }
    return node as Bucket<T>;
  }

  /** True when the two versions of a document belong in different buckets. */
  moved(previous: T, next: T): boolean {
    for (const field of this.fields) if (valueOf(previous, field) !== valueOf(next, field)) return true;
    return false;
  }

  /** Adds `entry` to the bucket of `doc`'s values. */
  add(entry: Entry<T>, doc: T): void {
    this.place(this.root, entry, doc, false);
  }

  /**
   * Builds the tree from entries already in (created_at, _id) order: each goes at the end of its
   * bucket, with no search for its place (a replay's end builds every index of every collection).
   */
  build(entries: readonly Entry<T>[]): void {
    const root: Level = new Map();
    for (const entry of entries) this.place(root, entry, entry.doc, true);
    this.root = root;
  }

  /** Puts `entry` in the bucket of `doc`'s values under `root`: at its end when `last` (it sorts after all), else in its place. */
  private place(root: Level, entry: Entry<T>, doc: T, last: boolean): void {
    const level = this.lastLevel(root, doc);
    const key = valueOf(doc, this.fields[this.last]);
    const bucket = level.get(key) as Bucket<T> | undefined;
    if (bucket === undefined) level.set(key, entry);
    else if (bucket instanceof SortedEntries) {
      if (last) bucket.push(entry);
      else insertSorted(bucket, entry, doc);
    } else level.set(key, new SortedEntries(last || precedes(bucket.doc, doc.created_at, doc._id) ? [bucket, entry] : [entry, bucket]));
  }

  /** The last level of the tree under `root` for `doc`'s values (the map of its buckets), made as needed. */
  private lastLevel(root: Level, doc: T): Level {
    const fields = this.fields;
    let level = root;
    for (let i = 0; i < this.last; i += 1) {
      const key = valueOf(doc, fields[i]);
      let next = level.get(key) as Level | undefined;
      if (next === undefined) level.set(key, (next = new Map()));
      level = next;
    }
    return level;
  }

  /** Removes `entry` from the bucket of `doc`'s values (`doc`: the version it was added with). */
  remove(entry: Entry<T>, doc: T): void {
    this.removeAt(this.root, 0, entry, doc);
  }

  private removeAt(level: Level, depth: number, entry: Entry<T>, doc: T): void {
    const key = valueOf(doc, this.fields[depth]);
    const node = level.get(key);
    if (node === undefined) return;
    if (depth < this.last) {
      this.removeAt(node as Level, depth + 1, entry, doc);
      if ((node as Level).size === 0) level.delete(key);
    } else if (node === entry) {
      level.delete(key);
    } else if (node instanceof SortedEntries) {
      const bucket = node as SortedEntries<T>;
      removeSorted(bucket, entry, doc);
      if (bucket.length === 1) level.set(key, bucket.at(0));
    }
  }
}

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
   * Entries created (or moved by a new created_at) with a (created_at, _id) before that of a
   * document created earlier (recorded late, see WalkQuery), in the order of those changes, and
   * their positions: the only documents a walk's cursor can have passed before they were there.
   * Entries deleted since are dropped once the deletions outnumber them.
   */
  private late: Entry<T>[] = [];
  private lateBorn: Position[] = [];
  private deletions = 0;
  /** Positions of deleted documents' deletions (tombstones), so that a replayed older put does not bring one back. */
  private gone = new Map<string, Position>();
  /** The document with the greatest (created_at, _id) created so far. */
  private highest: ReadDoc | undefined;
  /** The position of the last change applied: every document created at or before it is here. */
  private through: Position = 0;

  constructor(
    def: CollectionDef,
    private readonly pool: ValuePool,
  ) {
    // An index of no fields would hold every document, like `all`.
    this.indexes = def.indexes.filter((fields) => fields.length > 0).map((fields) => new Index<T>(fields));
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
    // A new created_at is a new place in the lists (coupons take the time they were associated).
    if (previous.created_at !== doc.created_at) this.noteRecorded(entry, doc, pos);
    if (this.deferred) {
      entry.doc = doc;
      return true;
    }
    if (previous.created_at !== doc.created_at) {
      this.unindex(entry, previous);
      entry.doc = doc;
      this.index(entry, doc);
      return true;
    }
    // Same (created_at, _id): the entry keeps its place in every list it stays in.
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
        if (taken.has(entry) || this.byId.get(doc._id) !== entry || !precedesOrIs(doc, after) || !matchesQuery(query, doc)) continue;
        taken.add(entry);
        late.push({ doc, born });
      }
      late.sort(byRecording);
      if (late.length > limit) {
        // More of them than a page holds: the next page goes on from the last one shown.
        late = late.slice(0, limit);
        const last = late[late.length - 1];
        const next = last === undefined ? after : { created_at: after.created_at, _id: after._id, through: String(last.born), lateId: last.doc._id };
        return { docs: late.map((l) => l.doc).sort(byKey), more: true, next };
      }
    }
    const room = limit - late.length;
    const cursor = after && { created_at: after.created_at, _id: after._id };
    const rest = this.select({ where: query.where, createdFrom: query.createdFrom, createdBefore: query.createdBefore, prefix: query.prefix, after: cursor }, 0, room + 1);
    return walkPage(late.map((l) => l.doc), rest, room, cursor, String(through));
  }

  /** Keeps `highest` and the late entries as `doc` takes its place in the lists: created, or moved by a new created_at. */
  private noteRecorded(entry: Entry<T>, doc: T, pos: Position): void {
    const highest = this.highest;
    if (highest === undefined || !precedes(doc, highest.created_at, highest._id)) this.highest = doc;
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
    const unfiltered = (query.where === undefined || Object.keys(query.where).length === 0) && query.createdFrom === undefined && query.createdBefore === undefined && !query.prefix;
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
    if (query.after) start = upperBound(list, query.after.created_at, query.after._id);
    if (query.createdFrom !== undefined) start = Math.max(start, lowerBound(list, query.createdFrom, ''));
    if (query.createdBefore !== undefined) end = lowerBound(list, query.createdBefore, '');
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

  /** Every entry in (created_at, _id) order, from byId. */
  private sortedEntries(): Entry<T>[] {
    // Documents arrive in the log's order, which is nearly created_at order: the sort meets long runs.
    return [...this.byId.values()].sort(compareEntries);
  }

  /** The list of every document, made at the first query that needs it and kept from then on. */
  private allEntries(): SortedEntries<T> {
    return (this.all ??= new SortedEntries(this.sortedEntries()));
  }

  private index(entry: Entry<T>, doc: T): void {
    if (this.all) insertSorted(this.all, entry, doc);
    for (const index of this.indexes) index.add(entry, doc);
  }

  private unindex(entry: Entry<T>, doc: T): void {
    if (this.all) removeSorted(this.all, entry, doc);
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
