import { docKey, SeededCodes, TimeOrderedIds } from './ids.js';

describe('ids and codes', () => {
  it('time-ordered ids keep increasing when the clock stands still or steps back', () => {
    let now = Date.UTC(2026, 5, 1);
    const ids = new TimeOrderedIds(() => now);
    const a = ids.next();
    const b = ids.next();
    now -= 5000;
    const c = ids.next();
    now += 60_000;
    const d = ids.next();
    expect([a < b, b < c, c < d]).toEqual([true, true, true]);
    expect(Number.isSafeInteger(d)).toBe(true);
  });

  it('time-ordered ids start above every id of the millisecond given as notBefore, even with the clock behind it', () => {
    const stored = Date.UTC(2026, 5, 1, 12);
    const earlier = new TimeOrderedIds(() => stored);
    const issued = Array.from({ length: 1000 }, () => earlier.next());
    const restarted = new TimeOrderedIds(() => stored - 3_600_000, stored);
    const next = restarted.next();
    expect(next).toBeGreaterThan(Math.max(...issued));
    expect(restarted.next()).toBe(next + 1);
    // A clock ahead of the floor is used as it is.
    expect(new TimeOrderedIds(() => stored + 60_000, stored).next()).toBe(new TimeOrderedIds(() => stored + 60_000).next());
  });

  it('seeded codes repeat exactly for the same seed and differ for another', () => {
    const first = new SeededCodes(42, 8, 'abc123');
    const again = new SeededCodes(42, 8, 'abc123');
    const other = new SeededCodes(43, 8, 'abc123');
    const take = (s: SeededCodes) => Array.from({ length: 5 }, () => s.next());
    const codes = take(first);
    expect(take(again)).toEqual(codes);
    expect(take(other)).not.toEqual(codes);
    expect(codes.every((c) => /^[abc123]{8}$/.test(c))).toBe(true);
  });

  it('pads document keys so text order is numeric order', () => {
    expect(docKey(9) < docKey(10)).toBe(true);
  });

  it('gives every id its own key, whichever ids were asked before it (recent keys are kept in shared places)', () => {
    const reference = (id: number) => String(id).padStart(16, '0');
    // Time-ordered ids (a time × 1024 plus a counter), small ones, zero and -0, and far more than the cache holds.
    const ids = [0, -0, 1, 9, 10, 2 ** 31, 2 ** 32, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER];
    for (let i = 0; i < 20_000; i += 1) ids.push(29034199022592 + i * 1024 + (i % 7), Math.floor(Math.random() * 2 ** 52));
    const wrong: [number, string][] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const id of ids) if (docKey(id) !== reference(id)) wrong.push([id, docKey(id)]);
      ids.reverse();
    }
    expect(wrong).toEqual([]);
  });
});
