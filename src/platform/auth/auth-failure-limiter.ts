/**
 * Throttles guessing (rate-limiter-flexible, counting failures only), per client address and the
 * key its credentials name (a merchant's access key, the admin token, or none: a header that names
 * no access key), each counted apart so that one cannot lock another out:
 *
 * - after AUTH_FAILURES_PER_MINUTE bad credentials for one key from one address within a minute,
 *   that address is refused with 429 and Retry-After for a minute on that key, whatever it sends
 *   (the right secret too: a guess that succeeds must not be told apart from the others);
 * - other keys from the same address keep working: merchants behind one gateway, or an
 *   integrator's server calling for many merchants, are not locked out by one of them sending a
 *   stale secret;
 * - an address whose failures over all merchant keys reach ADDRESS_FACTOR times the limit within
 *   a minute is refused on every merchant key (keys sprayed from one address); the admin token is
 *   neither counted there nor refused by it, so spraying merchant keys never locks the operators out.
 *
 * The address is the request's `ip`: behind a proxy listed in TRUST_PROXY, the forwarded client's.
 */
import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { CONFIG, type Config } from '../config.js';
import { TooManyRequestsError } from '../errors.js';

const WINDOW_SECONDS = 60;
/** Failures one address may have over every key, as a multiple of the per-key limit. */
export const ADDRESS_FACTOR = 10;
/** Longest part of a key kept in the counter's name (a key is whatever the client sent). */
const KEY_CHARS = 128;
/** Credentials that name no access key (a v2 token sent to v1, an empty access_key). */
export const NO_KEY = Symbol('no access key');
/** The admin token: counted apart, so that malformed merchant credentials never lock the operators out. */
export const ADMIN_TOKEN = Symbol('admin token');
/** What a failure is counted against: an access key as the client sent it, or one of the above. */
export type CredentialKey = string | typeof NO_KEY | typeof ADMIN_TOKEN;

function tooMany(msBeforeNext: number): TooManyRequestsError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new TooManyRequestsError([`too many failed authentication attempts; retry after ${seconds} s`], { 'retry-after': String(seconds) });
}

@Injectable()
export class AuthFailureLimiter {
  private readonly byKey: RateLimiterMemory;
  private readonly byAddress: RateLimiterMemory;
  private readonly keyPoints: number;
  private readonly addressPoints: number;

  constructor(@Inject(CONFIG) config: Config) {
    this.keyPoints = config.authFailuresPerMinute;
    this.addressPoints = config.authFailuresPerMinute * ADDRESS_FACTOR;
    this.byKey = new RateLimiterMemory({ points: this.keyPoints, duration: WINDOW_SECONDS, blockDuration: WINDOW_SECONDS });
    this.byAddress = new RateLimiterMemory({ points: this.addressPoints, duration: WINDOW_SECONDS, blockDuration: WINDOW_SECONDS });
  }

  /** Refuses an address that is blocked on `key` (or on every key), before the credentials are even looked at. */
  async assertAllowed(client: string, key: CredentialKey): Promise<void> {
    const [onKey, onAddress] = await Promise.all([this.byKey.get(counterOf(client, key)), key === ADMIN_TOKEN ? null : this.byAddress.get(client)]);
    const waits = [
      onKey && onKey.consumedPoints > this.keyPoints ? onKey.msBeforeNext : 0,
      onAddress && onAddress.consumedPoints > this.addressPoints ? onAddress.msBeforeNext : 0,
    ];
    const wait = Math.max(...waits);
    if (wait > 0) throw tooMany(wait);
  }

  /** Counts one failure of `key` from `client`; the one that crosses a limit is answered 429 instead of 401. */
  async recordFailure(client: string, key: CredentialKey): Promise<void> {
    const counted = [this.byKey.consume(counterOf(client, key))];
    if (key !== ADMIN_TOKEN) counted.push(this.byAddress.consume(client));
    const outcomes = await Promise.allSettled(counted);
    let wait = 0;
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') continue;
      if (!(outcome.reason instanceof RateLimiterRes)) throw outcome.reason;
      wait = Math.max(wait, outcome.reason.msBeforeNext);
    }
    if (wait > 0) throw tooMany(wait);
  }
}

/** The per-key counter's name: the address and the key (an access key cut short), apart. */
function counterOf(client: string, key: CredentialKey): string {
  if (key === NO_KEY) return `${client}\nnone`;
  if (key === ADMIN_TOKEN) return `${client}\nadmin`;
  return `${client}\nkey:${key.slice(0, KEY_CHARS)}`;
}
