/**
 * Every request the service sends to a merchant (webhooks, client-API callbacks) goes out here:
 * one POST, redirects never followed, one timeout for the whole exchange, and, unless
 * WEBHOOK_ALLOW_PRIVATE_URLS, the address check done in the connection's own DNS lookup: the
 * address checked is the address connected to, so a DNS answer that changes between a check and
 * the connection cannot slip a private address through.
 *
 * Connections to an origin are kept open between its requests (keep-alive), idle for at most
 * IDLE_CONNECTION_MS, or less where the server announces a shorter `Keep-Alive: timeout` (Node's
 * agent then closes it a second early). A new connection per request cost a TCP handshake each
 * time, and a TLS one for https: on loopback a third of a delivery's CPU (docs/benchmarks.md).
 * A kept connection can still be closed by the server just as a request goes out on it; such a
 * request, which failed on a reused connection before any answer came, is sent once more on a new
 * connection, so a stale pooled socket never turns into a failed attempt and an hour's delay.
 * A webhook's answer is read to its end (at most `maxResponseBytes`, else the connection is
 * dropped) after its status has decided the attempt, so that the connection can be reused.
 *
 * Node's own HTTP client is used because it takes that `lookup` hook; the built-in fetch only
 * could with a dispatcher from the separate undici package.
 */
import { Inject, Injectable } from '@nestjs/common';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { CONFIG, type Config } from '../../platform/config.js';
import { bareHostname, isDisallowedAddress } from '../domain/address-policy.js';

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /**
   * `status`: the answer is its status line (webhooks): the exchange ends when the headers
   * arrive. `body`: the body is read too, up to `maxResponseBytes` (client-API callbacks).
   */
  read: 'status' | 'body';
  maxResponseBytes?: number;
}

export interface OutboundResult {
  statusCode: number | null;
  /** Why the request failed before or while the answer came; null when an answer was read. */
  error: string | null;
  latencyMs: number;
  body: Buffer | null;
  location: string | undefined;
  /** The service was shutting down and cut the request off: it must not count as an attempt. */
  interrupted: boolean;
}

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

/**
 * Why a request failed beyond what its status says: no answer (error), or a redirect, which is
 * never followed. null: an answer came and its status decides (only 200 is success).
 */
export function failureReason(result: Pick<OutboundResult, 'statusCode' | 'error' | 'location'>): string | null {
  if (result.error !== null) return result.error;
  const status = result.statusCode;
  if (status !== null && status >= 300 && status < 400) {
    return `redirect (${status}) not followed${result.location ? ` (Location: ${result.location.slice(0, 500)})` : ''}`;
  }
  return null;
}

const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;
/** Below the 5 s after which Node's HTTP server, Apache and many proxies close an idle connection. */
export const IDLE_CONNECTION_MS = 4000;

/** dns.lookup, refusing the whole answer when any address in it is not public. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const bad = addresses.find((a) => isDisallowedAddress(a.address));
    if (bad || addresses.length === 0) {
      const why = bad ? `${hostname} resolves to ${bad.address}, a private, loopback or link-local address` : `${hostname} has no address`;
      return callback(new PrivateAddressError(`refused: ${why}`), '', 0);
    }
    if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
};

function describe(error: NodeJS.ErrnoException, host: string): string {
  if (error instanceof PrivateAddressError) return error.message;
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found: ${host}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return [error.code, error.message].filter(Boolean).join(': ') || 'request failed';
  }
}

/** Reads the rest of an answer whose status was all that counted, so its connection can be reused; a long one is dropped. */
function drain(response: http.IncomingMessage, max: number): void {
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > max) response.destroy();
  });
  // The attempt is decided: what happens to the rest is only the connection's concern.
  response.on('error', () => undefined);
}

@Injectable()
export class OutboundHttp {
  private shutdown = false;
  /**
   * One controller per exchange still open (until its answer is read to the end or it is cut
   * off), which abortAll aborts. Not `AbortSignal.any([timeout, shutdown])` per request: in this
   * Node a long-lived signal keeps an entry for every signal ever combined with it (nodejs/node
   * #55351), which grew the heap by one entry per delivery for as long as the process ran.
   */
  private readonly open = new Set<AbortController>();
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
    https: new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  };

  constructor(@Inject(CONFIG) private readonly config: Config) {}

  /** Cuts off every request still open (they resolve with `interrupted: true`) and closes the kept connections. */
  abortAll(): void {
    this.shutdown = true;
    for (const controller of this.open) controller.abort();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  get shuttingDown(): boolean {
    return this.shutdown;
  }

  /** Exchanges not over yet: a request waiting for its answer, or an answer still being read. */
  get openExchanges(): number {
    return this.open.size;
  }

  post(request: OutboundRequest): Promise<OutboundResult> {
    const started = performance.now();
    const finish = (r: Partial<OutboundResult>): OutboundResult => ({
      statusCode: null,
      error: null,
      body: null,
      location: undefined,
      interrupted: false,
      ...r,
      latencyMs: Math.round(performance.now() - started),
    });
    if (this.shutdown) return Promise.resolve(finish({ error: 'the service is shutting down', interrupted: true }));
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve(finish({ error: 'invalid URL' }));
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve(finish({ error: 'only http and https URLs are allowed' }));
    if (url.username || url.password) return Promise.resolve(finish({ error: 'URLs with credentials are not allowed' }));
    const host = bareHostname(url);
    const allowPrivate = this.config.webhookAllowPrivateUrls;
    if (!allowPrivate && isIP(host) && isDisallowedAddress(host)) {
      // An address literal is never looked up, so the lookup hook cannot see it.
      return Promise.resolve(finish({ error: `refused: ${host} is a private, loopback or link-local address` }));
    }
    const timeoutMs = this.config.webhookTimeoutMs;
    const body = Buffer.from(request.body, 'utf8');
    const max = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    // One timeout for the whole exchange, the reading of an answer whose status was enough included.
    const controller = new AbortController();
    const { signal } = controller;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    this.open.add(controller);
    const over = () => {
      clearTimeout(timer);
      this.open.delete(controller);
    };

    return new Promise<OutboundResult>((resolve) => {
      let settled = false;
      const done = (r: Partial<OutboundResult>) => {
        if (settled) return;
        settled = true;
        resolve(finish(r));
      };
      const failed = (error: NodeJS.ErrnoException, statusCode: number | null = null) => {
        if (timedOut) done({ statusCode, error: `timed out after ${timeoutMs} ms` });
        else if (this.shutdown) done({ statusCode, error: 'the service is shutting down', interrupted: true });
        else done({ statusCode, error: describe(error, host) });
      };
      const [client, pooled] = url.protocol === 'https:' ? [https, this.agents.https] : [http, this.agents.http];
      /** The request of the exchange (the second, when the first went out on a connection the server had dropped). */
      let current: http.ClientRequest | undefined;
      const send = (agent: http.Agent | false) => {
        let answered = false;
        const outgoing = client.request(
          url,
          {
            method: 'POST',
            headers: { ...request.headers, 'Content-Length': String(body.length) },
            agent,
            signal,
            lookup: allowPrivate ? undefined : guardedLookup,
          },
          (response) => {
            answered = true;
            const statusCode = response.statusCode ?? null;
            const location = response.headers.location;
            if (request.read === 'status') {
              done({ statusCode, location });
              drain(response, max);
              return;
            }
            const chunks: Buffer[] = [];
            let size = 0;
            response.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > max) {
                done({ statusCode, location, error: `response body larger than ${max} bytes` });
                response.destroy();
              } else chunks.push(chunk);
            });
            response.on('end', () => done({ statusCode, location, body: Buffer.concat(chunks) }));
            response.on('error', (error) => failed(error, statusCode));
            response.on('close', () => failed(Object.assign(new Error('connection closed before the answer was complete'), { code: undefined }), statusCode));
          },
        );
        current = outgoing;
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          // The server closed a kept connection as the request went out on it: not the endpoint's answer.
          if (agent !== false && outgoing.reusedSocket && !answered && !signal.aborted && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) send(false);
          else failed(error);
        });
        // Closed once its answer was read to the end, or when it failed or was cut off.
        outgoing.on('close', () => {
          if (outgoing !== current) return;
          over();
          failed(Object.assign(new Error('connection closed before an answer'), { code: undefined }));
        });
        outgoing.end(body);
      };
      send(pooled);
    });
  }
}
