/**
 * Which follows of a trackable link are recorded as clicks. Anyone may follow a link, and each
 * recorded click is an event kept for ever, so (docs/api-decisions.md):
 *
 * - a repeat (same code, address and user agent within REPEAT_WINDOW_MS of the recorded click) is
 *   not recorded again: one visitor reloading a page is one click;
 * - at most CLICKS_PER_MINUTE_PER_ADDRESS clicks a minute are recorded from one address, and
 *   CLICKS_PER_MINUTE_PER_CODE for one code from all addresses together;
 * - the headers kept with a click are cut to USER_AGENT_MAX and REFERRER_MAX characters.
 *
 * A follow that is not recorded still redirects: a visitor is never stranded. In memory, per app
 * (the live service and each sandbox generation), bounded by MAX_REMEMBERED visitors.
 */
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CONFIG, type Config } from '../../platform/config.js';

export const REPEAT_WINDOW_MS = 30 * 60 * 1000;
export const USER_AGENT_MAX = 256;
export const REFERRER_MAX = 512;
/** Visitors remembered for the repeat check; past it the oldest are forgotten (their next click is recorded). */
export const MAX_REMEMBERED = 100_000;
const MINUTE_MS = 60_000;

export type ClickVerdict = 'record' | 'repeat' | 'throttled';

/** Counts per key within the current minute; the previous minute's counts are dropped whole. */
class MinuteCounter {
  private minute = -1;
  private counts = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Whether `key` is under its limit this minute (nothing is counted). */
  allows(key: string, now: number): boolean {
    this.roll(now);
    return (this.counts.get(key) ?? 0) < this.limit;
  }

  take(key: string, now: number): void {
    this.roll(now);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  private roll(now: number): void {
    const minute = Math.floor(now / MINUTE_MS);
    if (minute !== this.minute) {
      this.minute = minute;
      this.counts = new Map();
    }
  }
}

@Injectable()
export class ClickAdmission {
  private readonly byAddress: MinuteCounter;
  private readonly byCode: MinuteCounter;
  /** Visitor key → when its recorded click stops counting as the one to repeat. */
  private readonly recent = new Map<string, number>();
  /** The same, oldest first, for forgetting (a queue: deleting a Map's first keys one by one costs quadratic time in V8). */
  private queue: [visitor: string, until: number][] = [];
  private head = 0;

  constructor(
    @Inject(CONFIG) config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.byAddress = new MinuteCounter(config.clicksPerMinutePerAddress);
    this.byCode = new MinuteCounter(config.clicksPerMinutePerCode);
  }

  /** Decides on one follow of `code` (the link's own) and, when it is to be recorded, counts it. */
  admit(code: string, address: string, userAgent: string | null): ClickVerdict {
    const now = this.clock.now().getTime();
    this.forgetExpired(now);
    // A digest: a remembered visitor costs the same whatever the length of its user agent.
    const visitor = createHash('sha256')
      .update(`${code}\n${address}\n${userAgent ?? ''}`)
      .digest('base64');
    const until = this.recent.get(visitor);
    if (until !== undefined && until > now) return 'repeat';
    if (!this.byAddress.allows(address, now) || !this.byCode.allows(code, now)) return 'throttled';
    this.byAddress.take(address, now);
    this.byCode.take(code, now);
    this.recent.set(visitor, now + REPEAT_WINDOW_MS);
    this.queue.push([visitor, now + REPEAT_WINDOW_MS]);
    while (this.recent.size > MAX_REMEMBERED) this.forgetOldest();
    return 'record';
  }

  /** How many visitors are remembered (for the memory bound's spec). */
  get remembered(): number {
    return this.recent.size;
  }

  private forgetExpired(now: number): void {
    while (this.head < this.queue.length && this.queue[this.head][1] <= now) this.forgetOldest();
  }

  private forgetOldest(): void {
    const [visitor, until] = this.queue[this.head];
    this.head += 1;
    // A visitor recorded again since has a later entry further on: only its own entry forgets it.
    if (this.recent.get(visitor) === until) this.recent.delete(visitor);
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}

/** A request header as kept with a click: the first value, cut to `max` characters. */
export function clickHeader(value: string | string[] | undefined, max: number): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' ? text.slice(0, max) : null;
}
