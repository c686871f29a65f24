/** A declared index of a memory collection: nested Maps keyed by the documents' raw field values. */
import { ReadDoc, Scalar } from './read-store.js';
import { Entry, valueOf, SortedEntries, precedes, insertSorted, removeSorted } from './memory-entries.js';

// Index trees. Inner levels are Map<value, Map>, the last level Map<value, Bucket>.
export type Bucket<T extends ReadDoc> = Entry<T> | SortedEntries<T>;
type Level = Map<unknown, unknown>;

export class Index<T extends ReadDoc> {
  root: Level = new Map();
  private readonly last: number;

  constructor(
    readonly fields: readonly string[],
    private readonly order: string,
  ) {
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
   * Builds the tree from entries already in (order field, _id) order: each goes at the end of its
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
      else insertSorted(bucket, entry, doc, this.order);
    } else level.set(key, new SortedEntries(last || precedes(bucket.doc, doc[this.order] as string, doc._id, this.order) ? [bucket, entry] : [entry, bucket]));
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
      removeSorted(bucket, entry, doc, this.order);
      if (bucket.length === 1) level.set(key, bucket.at(0));
    }
  }
}
