/**
 * What keeps the public sandbox from hurting the live service it shares a process with: a ceiling
 * on the events and bytes one generation may append after its baseline (its store refuses an
 * append that would pass it, so its log, and the read models made from it, stay bounded whatever
 * is sent), and limits on writes per minute per client address and per key. Clients' writes are
 * refused at the door a little before the ceiling (EDGE_SHARE), leaving the rest to the work the
 * accepted ones queued (emails), and to writes already in flight.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { FastifyRequest } from 'fastify';
import { TooManyRequestsError } from '../platform/errors.js';
import type { ErrorResponse } from '../platform/http/exception.filter.js';
import type { EventStore, NewEvent, StreamAppend } from '../platform/event-store/event-store.js';
import { parseToken } from '../platform/auth/tokens.js';
import { tokenFrom } from '../platform/auth/guards.js';

/** Share of either ceiling past which clients' writes are refused before they are read. */
export const EDGE_SHARE = 0.9;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The methods the sandbox's quota and write limits apply to. */
export function isWrite(method: string): boolean {
  return WRITE_METHODS.has(method);
}
const KEY_CHARS = 128;

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The events and bytes (of each event's type, data and metadata as JSON) one generation has appended since its baseline. */
export class GenerationQuota {
  events = 0;
  bytes = 0;
  private counting = false;

  constructor(
    readonly maxEvents: number,
    readonly maxBytes: number,
    /** When the generation is replaced by a fresh one (the next reset). */
    private readonly resetAt: () => number,
  ) {}

  /** From now on appends count (the baseline, seeded before, does not). */
  start(): void {
    this.counting = true;
  }

  /** Clients' writes are refused from here on. */
  get nearlyFull(): boolean {
    return this.events >= this.maxEvents * EDGE_SHARE || this.bytes >= this.maxBytes * EDGE_SHARE;
  }

  full(): TooManyRequestsError {
    const wait = seconds(this.resetAt() - Date.now());
    return new TooManyRequestsError(
      [
        `the sandbox is full: it keeps at most ${this.maxEvents} events and ${this.maxBytes} bytes written since its last reset; ` +
          `it returns to its baseline at ${new Date(this.resetAt()).toISOString()} (retry after ${wait} s)`,
      ],
      { 'retry-after': String(wait) },
    );
  }

  /** Reserves room for `events`, or throws the 429; the caller gives it back with `release` if the append fails. */
  reserve(events: readonly NewEvent[]): { events: number; bytes: number } {
    if (!this.counting) return { events: 0, bytes: 0 };
    let bytes = 0;
    for (const event of events)
      bytes += Buffer.byteLength(event.type) + Buffer.byteLength(JSON.stringify(event.data) ?? '') + Buffer.byteLength(JSON.stringify(event.metadata ?? {}));
    if (this.events + events.length > this.maxEvents || this.bytes + bytes > this.maxBytes) throw this.full();
    this.events += events.length;
    this.bytes += bytes;
    return { events: events.length, bytes };
  }

  release(taken: { events: number; bytes: number }): void {
    this.events -= taken.events;
    this.bytes -= taken.bytes;
  }
}

/** The generation's event store, with every append counted against its quota. */
export function withQuota(store: EventStore, quota: GenerationQuota): EventStore {
  const counted = async <T>(events: readonly NewEvent[], append: () => Promise<T>): Promise<T> => {
    const taken = quota.reserve(events);
    try {
      return await append();
    } catch (error) {
      quota.release(taken);
      throw error;
    }
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'append') {
        return (streamName: string, events: readonly NewEvent[], expected: Parameters<EventStore['append']>[2]) =>
          counted(events, () => target.append(streamName, events, expected));
      }
      if (property === 'appendMany' && target.appendMany) {
        return (appends: readonly StreamAppend[]) =>
          counted(
            appends.flatMap((a) => a.events),
            () => target.appendMany!(appends),
          );
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Writes per minute to the sandbox, per client address and per key; process-wide, so a reset does not clear them. */
export class SandboxWriteLimits {
  private readonly byAddress: RateLimiterMemory;
  private readonly byKey: RateLimiterMemory;

  constructor(
    private readonly perAddress: number,
    private readonly perKey: number,
    /** The key of the sample merchant's credentials, whichever form they take. */
    private readonly keyOf: (request: FastifyRequest) => string | undefined,
  ) {
    this.byAddress = new RateLimiterMemory({ points: perAddress, duration: 60 });
    this.byKey = new RateLimiterMemory({ points: perKey, duration: 60 });
  }

  /** Counts a write; the 429 when the address or the key has had its writes this minute. */
  async admit(request: FastifyRequest): Promise<ErrorResponse | undefined> {
    if (!WRITE_METHODS.has(request.method)) return undefined;
    const key = this.keyOf(request);
    try {
      await this.byAddress.consume(request.ip);
    } catch (error) {
      return refusal(error, `too many writes to the sandbox from this address: at most ${this.perAddress} a minute`);
    }
    if (key === undefined) return undefined;
    try {
      await this.byKey.consume(key);
    } catch (error) {
      return refusal(error, `too many writes to the sandbox with these credentials: at most ${this.perKey} a minute, from every address together`);
    }
    return undefined;
  }
}

function refusal(error: unknown, why: string): ErrorResponse {
  if (!(error instanceof RateLimiterRes)) throw error;
  const wait = seconds(error.msBeforeNext);
  return { status: 429, errors: [`${why}; retry after ${wait} s`], headers: { 'retry-after': String(wait) } };
}

/**
 * What a request's credentials are counted against: a merchant (a token's, or the sample access
 * key's, as `merchant:<id>`), another access key as sent, or nothing (no credentials: the 401 costs nothing).
 */
export function credentialKey(request: FastifyRequest, sample: { id: number; accessKey: string }): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const basic = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const accessKey = decoded.slice(0, Math.max(0, decoded.indexOf(':')));
    return accessKey === sample.accessKey ? `merchant:${sample.id}` : `key:${accessKey.slice(0, KEY_CHARS)}`;
  }
  const token = tokenFrom(header);
  const merchantId = token === undefined ? undefined : parseToken(token)?.claims.merchantId;
  return merchantId === undefined ? `token:${(token ?? '').slice(0, KEY_CHARS)}` : `merchant:${merchantId}`;
}
