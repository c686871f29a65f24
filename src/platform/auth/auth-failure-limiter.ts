/**
 * Throttles guessing: after AUTH_FAILURES_PER_MINUTE bad credentials from one client address
 * within a minute, that address is refused with 429 and Retry-After for a minute, whatever
 * it sends (rate-limiter-flexible, counting failures only).
 */
import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { CONFIG, type Config } from '../config.js';
import { TooManyRequestsError } from '../errors.js';

const WINDOW_SECONDS = 60;

function tooMany(msBeforeNext: number): TooManyRequestsError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new TooManyRequestsError([`too many failed authentication attempts; retry after ${seconds} s`], { 'retry-after': String(seconds) });
}

@Injectable()
export class AuthFailureLimiter {
  private readonly limiter: RateLimiterMemory;
  private readonly points: number;

  constructor(@Inject(CONFIG) config: Config) {
    this.points = config.authFailuresPerMinute;
    this.limiter = new RateLimiterMemory({ points: this.points, duration: WINDOW_SECONDS, blockDuration: WINDOW_SECONDS });
  }

  /** Refuses an address that is blocked, before its credentials are even looked at. */
  async assertAllowed(client: string): Promise<void> {
    const state = await this.limiter.get(client);
    if (state && state.consumedPoints > this.points) throw tooMany(state.msBeforeNext);
  }

  /** Counts one failure; the one that crosses the limit is answered 429 instead of 401. */
  async recordFailure(client: string): Promise<void> {
    try {
      await this.limiter.consume(client);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw tooMany(rejection.msBeforeNext);
      throw rejection;
    }
  }
}
