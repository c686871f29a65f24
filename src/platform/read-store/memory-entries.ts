/**
 * A collection's entries (a document and the position of its last event) and the ordered lists that
 * hold them, by (order field, _id), with the searches and filters a query walks them with.
 */
import { compareIds, ListQuery, ReadDoc, WalkCursor } from './read-store.js';

export type Position = number | bigint;

const MAX_SAFE_POSITION = BigInt(Number.MAX_SAFE_INTEGER);

/** Positions as numbers while they are exact (number and bigint compare exactly with each other). */
export function toPosition(position: bigint): Position {
  return position <= MAX_SAFE_POSITION ? Number(position) : position;
}

export class Entry<T extends ReadDoc> {
  constructor(
    public doc: T,
    public pos: Position,
  ) {}
}

/** A field absent from the document equals null. */
export function valueOf(doc: ReadDoc, field: string): unknown {
  const value = doc[field];
  return value === undefined ? null : value;
}

// Ordered lists of entries, by (order field, _id) of their documents: `order` names the field.

/** Free places a list keeps before its first entry before it is copied without them. */
const COMPACT_FROM = 1024;

/**
 * Entries in (order field, _id) order, in an array that keeps room before its first entry: an
 * insertion or removal moves the entries on the shorter side of its place. Lists consumed from
 * their front (due webhook deliveries, pending rewards, reminders waiting) then cost O(1) per
 * removal, where a splice moved every later entry (docs/benchmarks.md).
 */
export class SortedEntries<T extends ReadDoc> {
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
export function precedes(doc: ReadDoc, c: string, id: string, order: string): boolean {
  const dc = doc[order] as string;
  return dc < c || (dc === c && compareIds(doc._id, id) < 0);
}

/** First index whose document does not sort before (c, id). */
export function lowerBound(list: SortedEntries<ReadDoc>, c: string, id: string, order: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (precedes(list.at(mid).doc, c, id, order)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose document sorts after (c, id). */
export function upperBound(list: SortedEntries<ReadDoc>, c: string, id: string, order: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const doc = list.at(mid).doc;
    const dc = doc[order] as string;
    if (dc < c || (dc === c && compareIds(doc._id, id) <= 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * First index whose document does not sort before `doc`, searched from the end: new and
 * recently changed documents belong at or near it (one comparison for an append).
 */
function boundFromEnd(list: SortedEntries<ReadDoc>, doc: ReadDoc, order: string): number {
  const c = doc[order] as string;
  const id = doc._id;
  let hi = list.length;
  let probe = hi - 1;
  for (let step = 1; probe >= 0 && !precedes(list.at(probe).doc, c, id, order); step *= 2) {
    hi = probe;
    probe -= step;
  }
  let lo = probe < 0 ? 0 : probe + 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (precedes(list.at(mid).doc, c, id, order)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** True when `doc` sorts at or before the cursor's (order value, _id). */
export function precedesOrIs(doc: ReadDoc, cursor: WalkCursor, order: string): boolean {
  const dc = doc[order] as string;
  return dc < cursor.at || (dc === cursor.at && compareIds(doc._id, cursor._id) <= 0);
}

/** First index of `positions` (ascending) holding one not below `position`. */
export function firstAtOrAfter(positions: readonly Position[], position: Position): number {
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
export function byRecording(a: { doc: ReadDoc; born: Position }, b: { doc: ReadDoc; born: Position }): number {
  if (a.born !== b.born) return a.born < b.born ? -1 : 1;
  return compareIds(a.doc._id, b.doc._id);
}

/** Whether `doc` meets every filter of `query` (its `where`, date range and prefix); for documents not found through a plan. */
export function matchesQuery(query: Omit<ListQuery, 'limit' | 'offset' | 'after'>, doc: ReadDoc, order: string): boolean {
  const where = query.where ?? {};
  for (const field of Object.keys(where)) if (valueOf(doc, field) !== (where[field] === undefined ? null : where[field])) return false;
  if (query.from !== undefined && (doc[order] as string) < query.from) return false;
  if (query.before !== undefined && (doc[order] as string) >= query.before) return false;
  if (!query.prefix) return true;
  const value = query.prefix.value.toLowerCase();
  for (const field of query.prefix.fields) if (String(doc[field] ?? '').startsWith(value)) return true;
  return false;
}

/** The (order field, _id) order of two entries' documents. */
export function entryOrder(order: string): (a: Entry<ReadDoc>, b: Entry<ReadDoc>) => number {
  return (a, b) => (precedes(a.doc, b.doc[order] as string, b.doc._id, order) ? -1 : precedes(b.doc, a.doc[order] as string, a.doc._id, order) ? 1 : 0);
}

/** Inserts `entry`, placed by `doc`'s (order field, _id). */
export function insertSorted<T extends ReadDoc>(list: SortedEntries<T>, entry: Entry<T>, doc: T, order: string): void {
  list.insertAt(boundFromEnd(list, doc, order), entry);
}

/** Removes `entry`, which `doc` (its document when it was inserted) placed. */
export function removeSorted<T extends ReadDoc>(list: SortedEntries<T>, entry: Entry<T>, doc: T, order: string): void {
  const at = boundFromEnd(list, doc, order);
  if (at < list.length && list.at(at) === entry) list.removeAt(at);
}
