/**
 * Integer ids for the API's resources come from an IdSource, so specs can fix them.
 * The default is time-ordered: (milliseconds since 2026-01-01) × 1024 + a counter, which
 * stays below 2^53 for about 278 years, sorts like created_at, and never repeats within a
 * process even when the clock stands still or steps back.
 */
import { randomBytes } from 'node:crypto';

export interface IdSource {
  next(): number;
}

export const ID_SOURCE = Symbol('IdSource');

const EPOCH = Date.UTC(2026, 0, 1);

export class TimeOrderedIds implements IdSource {
  private last = 0;
  constructor(private readonly now: () => number = Date.now) {}

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

/** Read-model keys: zero-padded so that text order is numeric order. */
export function docKey(id: number): string {
  return String(id).padStart(16, '0');
}
