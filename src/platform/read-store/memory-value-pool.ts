/**
 * One instance of each recent string or number value across a store's documents, so that equal
 * values are held once (see memory-read-store.ts).
 */
import { ReadDoc } from './read-store.js';

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
export const NULL_ALWAYS_FOR = 1024;
export const NULL_EVERY = 64;

/**
 * One instance of each recent string or number value, so that equal values in many documents
 * are held once. Strings: a map of the last POOL_SIZE distinct ones. Numbers: a direct-mapped
 * table (a map lookup per field cost 15 % of a replay), which is enough for the numbers that
 * repeat: an id in the documents of one purchase, put one after another, and the merchant's,
 * widget's and advocate's ids.
 */
export class ValuePool {
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
