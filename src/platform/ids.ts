/**
 * Integer ids for the API's resources come from an IdSource, so specs can fix them.
 * The default is time-ordered: (milliseconds since 2026-01-01) × 1024 + a counter, which
 * stays below 2^53 for about 278 years, sorts like created_at, and never repeats within a
 * process even when the clock stands still or steps back. Across a restart, the service starts
 * the counter above the time of the last stored event (`notBefore`), so a clock that stepped
 * back while it was down cannot issue an id again.
 */
import { randomBytes } from 'node:crypto';

export interface IdSource {
  next(): number;
}

export const ID_SOURCE = Symbol('IdSource');

const EPOCH = Date.UTC(2026, 0, 1);

export class TimeOrderedIds implements IdSource {
  private last = 0;
  /**
   * `notBefore`: a time (ms) at or before which ids may already have been issued, e.g. by an
   * earlier process; every id is then above those of that millisecond.
   */
  constructor(
    private readonly now: () => number = Date.now,
    notBefore?: number,
  ) {
    if (notBefore !== undefined) this.last = (Math.max(0, notBefore - EPOCH) + 1) * 1024 - 1;
  }

  next(): number {
    const candidate = Math.max(0, this.now() - EPOCH) * 1024;
    this.last = candidate > this.last ? candidate : this.last + 1;
    return this.last;
  }
}

export class SequentialIds implements IdSource {
  constructor(private current = 0) {}
  next(): number {
    this.current += 1;
    return this.current;
  }
}

/** Random token text from a URL-safe alphabet; rejection sampling keeps it unbiased. */
export function randomString(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Places of docKey's cache of recent keys (a power of two). */
const KEY_SLOTS = 4096;
const KEY_SLOT_SHIFT = 32 - Math.log2(KEY_SLOTS);
const keyIds = new Float64Array(KEY_SLOTS).fill(NaN);
const keyTexts = new Array<string>(KEY_SLOTS).fill('');

/**
 * Read-model keys: zero-padded so that text order is numeric order. padStart makes a
 * concatenation (two strings and a node joining them, 95 bytes measured); toLowerCase, a no-op
 * on digits, returns it as one flat string (40 bytes), which a Map also hashes without flattening.
 *
 * The key of a recent id is given again rather than made anew (a direct-mapped cache, as the
 * read store's number pool): the projections that handle one event ask for the same ids, and a
 * reward's key is its conversion's, so the two documents and their maps hold one string.
 */
export function docKey(id: number): string {
  // Both 32-bit halves of the integer part, mixed (an id's low bits are mostly a counter at 0).
  const slot = Math.imul((id >>> 0) ^ Math.imul(id / 4294967296, 0x85ebca6b), 0x9e3779b1) >>> KEY_SLOT_SHIFT;
  if (keyIds[slot] === id) return keyTexts[slot];
  const key = String(id).padStart(16, '0').toLowerCase();
  keyIds[slot] = id;
  keyTexts[slot] = key;
  return key;
}

/** Referral codes come from a CodeSource, so sample data can have fixed codes. */
export interface CodeSource {
  next(): string;
}

export const CODE_SOURCE = Symbol('CodeSource');

export class RandomCodes implements CodeSource {
  constructor(
    private readonly length: number,
    private readonly alphabet: string,
  ) {}
  next(): string {
    return randomString(this.length, this.alphabet);
  }
}

/** Repeatable codes from a seed (mulberry32): the same seed gives the same codes, in order. */
export class SeededCodes implements CodeSource {
  private state: number;
  constructor(
    seed: number,
    private readonly length: number,
    private readonly alphabet: string,
  ) {
    this.state = seed >>> 0;
  }
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  next(): string {
    let out = '';
    for (let i = 0; i < this.length; i += 1) out += this.alphabet[Math.floor(this.random() * this.alphabet.length)];
    return out;
  }
}
