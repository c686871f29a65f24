/** When an outbound request that failed is tried again: webhook deliveries and client-API callbacks share the rule. */

export type RetryDecision = { retry: true; nextAttemptAt: Date } | { retry: false };

/**
 * When a failed request is tried again: the first tick of the grid `firstAttemptAt + k·interval`
 * (k ≥ 1) that is after `now`, unless that tick is more than `window` after the first attempt,
 * in which case the request is given up. With the defaults (1 h, 24 h) that is one attempt per
 * hour and 25 in all: at 0 h, 1 h, …, 24 h. A late attempt does not shift the grid.
 */
export function retrySchedule(firstAttemptAt: Date, now: Date, intervalMs: number, windowMs: number): RetryDecision {
  if (!(intervalMs > 0)) throw new Error('intervalMs must be positive');
  const elapsed = Math.max(0, now.getTime() - firstAttemptAt.getTime());
  const next = firstAttemptAt.getTime() + (Math.floor(elapsed / intervalMs) + 1) * intervalMs;
  if (next > firstAttemptAt.getTime() + windowMs) return { retry: false };
  return { retry: true, nextAttemptAt: new Date(next) };
}

/**
 * True when a round whose first attempt was at `firstAttemptAt` may send nothing more: the tick
 * after the last one within its window is due (the service was down, or that far behind, when its
 * last ticks came). Such a round ends unsent. An attempt a tick is owed goes out late until then:
 * the last tick's is taken a moment after that tick, which is the window's end when the window is
 * a whole number of intervals (24 h and 1 h), and comparing with the window's end alone gave it up
 * unsent every time.
 */
export function retryWindowClosed(firstAttemptAt: string | null, now: Date, intervalMs: number, windowMs: number): boolean {
  if (firstAttemptAt === null) return false;
  if (!(intervalMs > 0)) throw new Error('intervalMs must be positive');
  const first = Date.parse(firstAttemptAt);
  const lastTick = first + Math.floor(Math.max(0, windowMs) / intervalMs) * intervalMs;
  return now.getTime() >= lastTick + intervalMs;
}
