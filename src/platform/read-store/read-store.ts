/**
 * The read-model port: document collections that projections write and queries read. Every
 * adapter (in-memory, MongoDB) implements exactly this contract, held to it by
 * test/contract/read-store.contract.ts.
 *
 * Documents carry their key in `_id` and their creation time in `created_at` (ISO 8601, UTC,
 * millisecond precision, so that string order is time order). Lists are ordered by the
 * collection's order field and `_id`, ascending: `created_at` unless the model orders by another
 * time (a due queue, by when its work is due); walks (WalkQuery) page them without skipping a
 * document recorded after its place was passed.
 */

import type { PersonalDocFields } from '../personal-data/personal-fields.js';

export type Scalar = string | number | boolean | null;

export interface ReadDoc {
  _id: string;
  created_at: string;
  /** Global position of the last event applied to this document (idempotence guard). */
  _pos?: string;
  [field: string]: unknown;
}

export interface CollectionDef {
  readonly name: string;
  /** Equality fields that list queries filter on; each gets an index (fields, order field, _id). */
  readonly indexes: readonly (readonly string[])[];
  /** The time field lists are ordered by (ISO 8601 text in every document); `created_at` when absent. */
  readonly orderBy?: string;
  /** Where its documents keep personal values, so that erasing a person reaches them (read-model-erasure.ts). */
  readonly personal?: PersonalDocFields;
}

/** The field a collection's lists are ordered by. */
export function orderOf(def: CollectionDef): string {
  return def.orderBy ?? 'created_at';
}

export interface ListQuery {
  /** Equality filters, ANDed. A field absent from the document equals null. */
  where?: Record<string, Scalar>;
  /** Inclusive lower bound on the order field. */
  from?: string;
  /** Exclusive upper bound on the order field. */
  before?: string;
  /** Case-insensitive prefix on any of the fields (which must hold lower-cased copies). */
  prefix?: { fields: readonly string[]; value: string };
  /** Keyset paging: only documents strictly after this (order field's value, _id). */
  after?: { at: string; _id: string };
  /** Offset paging (v1); not used together with `after`. */
  offset?: number;
  limit: number;
}

/**
 * The writes and point reads of a collection held in this process (the in-memory adapter),
 * answered at once instead of through a promise: the same operations with the same answers,
 * for the projection runner's loop, which otherwise pays a promise and a microtask per call.
 */
export interface ImmediateCollection<T extends ReadDoc = ReadDoc> {
  get(id: string): T | null;
  put(doc: T, position: bigint): boolean;
  delete(id: string, position: bigint): boolean;
}

/**
 * One page of a keyset walk (v2 paging). Lists are in (order field, _id) order, but a document is
 * recorded a little after its time (its write may wait its turn on a stream another write
 * holds), so it can appear at or before a cursor that a walk has already passed. A walk therefore
 * hands on, with its cursor, the position of the event log through which it saw the collection
 * (`through`); the next page first shows the matching documents recorded after that position at
 * or before the cursor, in the order they were recorded, then goes on after the cursor. No
 * document is skipped or shown twice, whatever is written meanwhile, except that one which moves
 * to a new place (a new time in its order field) counts as recorded when it moved, and a walk that has passed
 * its new place shows it there again.
 */
export interface WalkQuery extends Omit<ListQuery, 'offset' | 'after'> {
  /** The previous page's cursor; `through` absent (a cursor from before walks had it): after the cursor only. */
  after?: WalkCursor;
}

export interface WalkCursor {
  /** The order field's value of the last document shown. */
  at: string;
  _id: string;
  /** Position (decimal) of the event log through which the page that issued the cursor saw the collection. */
  through?: string;
  /**
   * When that page ended among the documents recorded late at `through` itself (an event that
   * created several, more than the page had room for): the `_id` of the last one it showed. Late
   * documents come in (recording position, _id) order.
   */
  lateId?: string;
}

export interface WalkPage<T extends ReadDoc> {
  /** At most `limit` documents: those recorded late (in the collection's order), then those after the cursor. */
  docs: T[];
  /** More documents follow, from `next`. */
  more: boolean;
  /** The cursor of the next page (undefined only for a first page with no document). */
  next: WalkCursor | undefined;
}

/**
 * Code point order of two strings (negative, 0, positive), which is MongoDB's (UTF-8 bytes): JS's
 * `<` compares UTF-16 units, which puts a character past U+FFFF (a surrogate pair, an emoji) before U+E000–U+FFFF.
 */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const length = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < length; i += 1) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Both in U+D800–U+FFFF: surrogates (D800–DFFF) go after E000–FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x += x < 0xe000 ? 0x2000 : -0x800;
      y += y < 0xe000 ? 0x2000 : -0x800;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** The order of a collection's lists: (order field, _id). */
export function byOrder(order: string): (a: ReadDoc, b: ReadDoc) => number {
  return (a, b) => {
    const x = a[order] as string;
    const y = b[order] as string;
    if (x !== y) return x < y ? -1 : 1;
    return compareIds(a._id, b._id);
  };
}

/**
 * A walk's page from its two parts, as both adapters make it: the documents recorded late (all of
 * them: they fitted), and those after the cursor, asked for with one more than `room` to know
 * whether more follow. `through`: the position the page saw the collection at (decimal).
 */
export function walkPage<T extends ReadDoc>(
  late: T[],
  rest: T[],
  room: number,
  cursor: { at: string; _id: string } | undefined,
  through: string,
  order: string,
): WalkPage<T> {
  const more = rest.length > room;
  if (more) rest.length = room;
  const last: { at: string; _id: string } | undefined =
    rest.length > 0 ? { at: rest[rest.length - 1][order] as string, _id: rest[rest.length - 1]._id } : cursor;
  const docs = late.length === 0 ? rest : [...late.sort(byOrder(order)), ...rest];
  return { docs, more, next: last === undefined ? undefined : { at: last.at, _id: last._id, through } };
}

/** One change of ReadCollection.applyMany: `change` takes the document as the changes before it left it (null: none). */
export interface DocChange<T extends ReadDoc> {
  id: string;
  position: bigint;
  change: (doc: T | null) => T | null;
}

export interface ReadCollection<T extends ReadDoc = ReadDoc> {
  /** The field its lists are ordered by (orderOf its definition). */
  readonly order: string;
  /** Present when the collection can answer get/put/delete synchronously (ImmediateCollection). */
  readonly immediate?: ImmediateCollection<T>;
  get(id: string): Promise<T | null>;
  findOne(where: Record<string, Scalar>): Promise<T | null>;
  /**
   * Writes the document if it is new or its stored `_pos` is lower than `position`.
   * Returns false (and changes nothing) when the document has already seen that position.
   */
  put(doc: T, position: bigint): Promise<boolean>;
  /** Deletes the document unless it has already seen `position`. */
  delete(id: string, position: bigint): Promise<boolean>;
  /**
   * Applies changes in order in few round trips (MongoDB: one read and one bulk write per thousand
   * documents), with the result of `get`, then `put` of what `change` returns or `delete` when it
   * returns null for a document there, for each in turn; a change at a position its document has
   * already seen is skipped. Absent: the caller makes those calls itself.
   */
  applyMany?(changes: readonly DocChange<T>[]): Promise<void>;
  list(query: ListQuery): Promise<T[]>;
  /** One page of a keyset walk that no concurrent write makes skip a document (see WalkQuery). */
  walk(query: WalkQuery): Promise<WalkPage<T>>;
  count(query: Omit<ListQuery, 'limit' | 'offset' | 'after'>): Promise<number>;
}

export interface ReadStore {
  collection<T extends ReadDoc = ReadDoc>(def: CollectionDef): ReadCollection<T>;
  getCheckpoint(name: string): Promise<bigint | undefined>;
  setCheckpoint(name: string, position: bigint): Promise<void>;
  /** Drops every collection and checkpoint (full rebuild). */
  clear(): Promise<void>;
  /** True when the models survive a restart (MongoDB), false when rebuilt at start-up. */
  readonly durable: boolean;
  /** After a bulk load (the start-up's replay): make ready for queries now rather than at the first (the in-memory store builds its sorted lists). */
  settle?(): void;
  /**
   * Told by the projection runner how far this process has applied the log, every document of
   * every event included: a store whose writes of one event are not atomic (MongoDB: an event that
   * makes several documents puts them one after the other) bounds a walk's page by it, so that no
   * page shows part of an event and passes the place of a document the event has yet to write.
   */
  trackApplied?(applied: () => bigint): void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const READ_STORE = Symbol('ReadStore');

/** Positions are compared as fixed-width decimal strings so that every store can order them. */
export function positionKey(position: bigint): string {
  return position.toString().padStart(40, '0');
}

/**
 * Every document `where` selects, in the collection's order, read a page at a time with a
 * keyset cursor, so that no limit leaves any out. A document that stops matching while the
 * walk goes on (work done on it) does not disturb the cursor.
 */
export async function* everyDoc<T extends ReadDoc>(collection: ReadCollection<T>, where: Record<string, Scalar>, pageSize = 1000): AsyncGenerator<T> {
  let after: { at: string; _id: string } | undefined;
  for (;;) {
    const page = await collection.list({ where, limit: pageSize, after });
    yield* page;
    if (page.length < pageSize) return;
    const last = page[page.length - 1];
    after = { at: last[collection.order] as string, _id: last._id };
  }
}
