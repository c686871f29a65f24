/**
 * Throttles the anonymous browser routes per client address (the request's `ip`: behind a proxy
 * listed in TRUST_PROXY, the forwarded client's): BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS requests
 * of any kind, and BROWSER_CAPTURES_PER_MINUTE_PER_ADDRESS email captures, BROWSER_SHARES_… shares
 * and BROWSER_PURCHASES_… purchases, each recorded one being an event kept for ever. Beyond any,
 * 429 with Retry-After. In memory, per app.
 */
import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { CONFIG, type Config } from '../../platform/config.js';
import { TooManyRequestsError } from '../../platform/errors.js';

const WINDOW_SECONDS = 60;

export type BrowserUse = 'request' | 'capture' | 'share' | 'purchase';

const WHAT: Record<BrowserUse, string> = { request: 'requests to the browser routes', capture: 'email captures', share: 'shares', purchase: 'purchases' };

@Injectable()
export class BrowserAdmission {
  private readonly limiters: Record<BrowserUse, RateLimiterMemory>;

  constructor(@Inject(CONFIG) config: Config) {
    this.limiters = {
      request: new RateLimiterMemory({ points: config.browserRequestsPerMinutePerAddress, duration: WINDOW_SECONDS }),
      capture: new RateLimiterMemory({ points: config.browserCapturesPerMinutePerAddress, duration: WINDOW_SECONDS }),
      share: new RateLimiterMemory({ points: config.browserSharesPerMinutePerAddress, duration: WINDOW_SECONDS }),
      purchase: new RateLimiterMemory({ points: config.browserPurchasesPerMinutePerAddress, duration: WINDOW_SECONDS }),
    };
  }

  /** Counts one `use` from `address`, or refuses it with 429 once the address has used up its minute. */
  async admit(address: string, use: BrowserUse): Promise<void> {
    try {
      await this.limiters[use].consume(address);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
      throw new TooManyRequestsError([`too many ${WHAT[use]} from this address; retry after ${seconds} s`], { 'retry-after': String(seconds) });
    }
  }
}
