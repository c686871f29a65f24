/** Read models as MongoDB stores them: keys it cannot hold, creation and deletion positions, tombstones. */
import { type Document } from 'mongodb';
import { positionKey, ReadDoc } from './read-store.js';

/** Documents as stored: string keys, so filters on _id type-check against strings. */
export interface StoredDoc {
  _id: string;
  [field: string]: unknown;
}

/**
 * `text` as a literal in a regular expression. NUL too: the server refuses a pattern that holds
 * one ("Regular expression cannot contain an embedded null byte"), which answered a name prefix
 * with a NUL (`?name=%00`) with a 500; `\x00` is the same character to PCRE.
 */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\0/g, '\\x00');
}

/**
 * Objects whose keys are the client's (link parameters, custom header names) may hold keys BSON
 * or the server cannot: a NUL in a key, `_bsontype` (the serializer takes the object for a BSON
 * value and throws), a leading `$` or a dot. Such an object is stored as its key-value pairs under
 * PAIRS, and read back as the object: a document that could not be stored stopped every
 * projection at its event, retrying it for ever, where the embedded store takes it. An object
 * with none of these keys is stored as it is, so documents written before are read as they were.
 * Each pair is an object `{ k, v }`, not a `[key, value]` array: FerretDB refuses nested arrays.
 * Pairs stored as arrays (earlier releases) are still read.
 */
const PAIRS = '\u0001pairs';

/** An array directly inside an array is stored wrapped in an object under ARRAY (FerretDB refuses nested arrays). */
const ARRAY = '\u0001array';

function needsPairs(key: string): boolean {
  return key === '_bsontype' || key === PAIRS || key === ARRAY || key.startsWith('$') || key.includes('.') || key.includes('\0');
}

/**
 * `value` (an array, or an object's own properties) with `each` applied to every element or
 * property value, copied only where one changed: documents are shared with their callers, so
 * nothing is changed in place, and most documents have nothing to change.
 */
function mapValues<T extends unknown[] | Record<string, unknown>>(value: T, each: (item: unknown) => unknown): T {
  let out: T | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const next = each(item);
    if (next !== item) ((out ??= (Array.isArray(value) ? value.slice() : { ...value }) as T) as Record<string, unknown>)[key] = next;
  }
  return out ?? value;
}

/** `value` as stored: the same value unless some object in it needs its pairs. */
export function storable(value: unknown): unknown {
  if (Array.isArray(value)) return mapValues(value, (item) => (Array.isArray(item) ? { [ARRAY]: storable(item) } : storable(item)));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.some(needsPairs)) return { [PAIRS]: keys.map((key) => ({ k: key, v: storable(object[key]) })) };
  return mapValues(object, storable);
}

/** The value `storable` stored. */
export function restored(value: unknown): unknown {
  if (Array.isArray(value)) return mapValues(value, restored);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 1 && keys[0] === PAIRS && Array.isArray(object[PAIRS])) {
    const pairs = object[PAIRS] as ({ k: string; v: unknown } | [string, unknown])[];
    return Object.fromEntries(pairs.map((pair) => (Array.isArray(pair) ? [pair[0], restored(pair[1])] : [pair.k, restored(pair.v)])));
  }
  if (keys.length === 1 && keys[0] === ARRAY && Array.isArray(object[ARRAY])) return restored(object[ARRAY]);
  return mapValues(object, restored);
}

/** A document as stored: its fields are the projection's, and what may need its pairs is in their values. */
export function storedDoc<T extends ReadDoc>(doc: T): T {
  return mapValues(doc as Record<string, unknown>, storable) as T;
}

/** A document as it was put. */
export function restoredDoc<T extends ReadDoc>(doc: Document): T {
  return mapValues(doc, restored) as T;
}

/** A stored document as it was put, its creation position left out. */
export function withoutBorn<T extends ReadDoc>(stored: StoredDoc): T {
  const { _born, ...doc } = stored;
  return restoredDoc<T>(doc as StoredDoc);
}

/** Reads leave out the stored positions: documents come back exactly as they were put. */
export const WITHOUT_POSITION = { _pos: 0, _born: 0 } as const;

/**
 * A stored document also keeps `_born`, the position its first version was put at (the event that
 * created it), for walks (WalkQuery): kept through every later put. A document stored before
 * walks had it gets the first position (as if recorded at the start), not that of its next change,
 * which would show it again to a walk that has passed it.
 */
export const FIRST_POSITION = positionKey(0n);

export function bornAt(key: string, order: string, at: string): Document {
  // A new value of the order field is a new place in the lists (coupons take the time they were
  // associated): recorded at this position, as a new document is.
  const kept = { $ifNull: ['$_born', { $cond: [{ $eq: [{ $type: '$_pos' }, 'missing'] }, key, FIRST_POSITION] }] };
  return { $cond: [{ $eq: [`$${order}`, { $literal: at }] }, kept, key] };
}

/**
 * A deleted document stays as a tombstone `{ _id, _pos, [GONE]: true }` (no other field), so that a
 * replayed put older than the deletion finds its position and changes nothing; reads leave tombstones out.
 */
export const GONE = '_gone';
export const LIVE = { [GONE]: { $exists: false } } as const;

/** Matches a stored document whose `_pos` is absent or lower than `key`. */
export function olderThan(key: string): Document {
  return { $or: [{ _pos: { $lt: key } }, { _pos: { $exists: false } }] };
}
