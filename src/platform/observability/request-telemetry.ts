/**
 * What every HTTP request leaves behind, from Fastify hooks so that responses sent before Nest
 * (404, 405, 406, 413, 415) count too: the `X-Request-Id` response header, one access-log line
 * (method, route pattern, path, status, latency, request id, merchant id; never headers, query
 * strings or bodies, so no credential or secret key can reach the log, and email addresses in
 * paths replaced by a placeholder), and the latency
 * histogram. It also counts requests in flight, so a shutdown can refuse new requests with a
 * 503 and wait for the running ones to finish.
 */
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RequestWithPrincipal } from '../auth/principal.js';
import { sendError } from '../http/exception.filter.js';
import { Metrics } from './metrics.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** A path segment holding an email address (`@`, raw or percent-encoded): the log shows EMAIL_PLACEHOLDER in its place. */
const EMAIL_SEGMENT = /@|%40/i;
export const EMAIL_PLACEHOLDER = ':email';

/**
 * The path as the access log shows it: no query, and no email address (`/v1/email_opt_outs/ann@example.com`
 * is logged as `/v1/email_opt_outs/:email`), so the log holds no personal data a path carried.
 */
export function loggedPath(url: string): string {
  const path = url.split('?', 1)[0];
  return path
    .split('/')
    .map((segment) => (EMAIL_SEGMENT.test(segment) ? EMAIL_PLACEHOLDER : segment))
    .join('/')
    .slice(0, 512);
}

/**
 * Requests whose access-log line another application writes: the live app forwards /sandbox
 * requests to the sandbox's, which logs them under their own route and merchant, with the same
 * request id. The live app's line would repeat them under `/sandbox/*` (its metrics still count them).
 */
export const LOGGED_ELSEWHERE = new WeakSet<FastifyRequest>();

/**
 * The inner requests of point-in-time reads (`/admin/merchants/{id}/as_of`, src/audit): the admin
 * request is the traffic, measured once; its inner GET is logged, marked `point_in_time`, and left
 * out of the request metrics, which would otherwise count history reads as the merchant's API traffic.
 */
export const POINT_IN_TIME = new WeakSet<FastifyRequest>();

/** Probes and scrapes are logged at verbose level only: they would drown the access log. */
const QUIET_ROUTES = new Set(['/health', '/ready', '/metrics']);
const UNMATCHED = 'unmatched';

export interface AccessLogEntry {
  request_id: string;
  method: string;
  route: string;
  path: string;
  status: number;
  latency_ms: number;
  merchant_id?: number;
  point_in_time?: true;
}

@Injectable()
export class RequestTelemetry implements OnModuleInit {
  private readonly logger = new Logger('Http');
  private inFlight = 0;
  /** Requests counted in `inFlight`; each leaves it once, at its response or its lost connection. */
  private readonly counted = new WeakSet<FastifyRequest>();
  private accepting = true;
  private idle: (() => void)[] = [];

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: Metrics,
  ) {
    const inFlight = () => this.inFlight;
    metrics.gauge({
      name: 'http_requests_in_flight',
      help: 'HTTP requests received and not yet answered (this scrape included)',
      collect() {
        this.set(inFlight());
      },
    });
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  get isAccepting(): boolean {
    return this.accepting;
  }

  onModuleInit(): void {
    // Runs in app.init(), before Fastify is ready, so the hooks apply to every route and to the 404 handler.
    this.install(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
  }

  // Callback-style hooks: an async hook costs every request a promise and a microtask turn.
  private install(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if (!this.accepting) {
        reply.header('connection', 'close');
        // Answered here: the request goes no further (done is not called).
        sendError(reply, { status: 503, errors: ['the service is shutting down; retry on another instance'], headers: { 'retry-after': '5' } });
        return;
      }
      this.inFlight += 1;
      this.counted.add(request);
      // 'close' covers a client that goes away before its response (no onResponse then).
      reply.raw.once('close', () => this.finished(request));
      done();
    });

    fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      done(null, payload);
    });

    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      this.finished(request);
      const route = request.routeOptions.url ?? UNMATCHED;
      const status = reply.statusCode;
      const latencyMs = reply.elapsedTime;
      const pointInTime = POINT_IN_TIME.has(request);
      if (!pointInTime) this.metrics.httpRequests.observe({ method: request.method, route, status: String(status) }, latencyMs / 1000);
      const level = QUIET_ROUTES.has(route) ? 'verbose' : status >= 500 ? 'error' : 'log';
      // The entry is built only for a line that is written (the access log is off below LOG_LEVEL=info).
      if (Logger.isLevelEnabled(level) && !LOGGED_ELSEWHERE.has(request)) {
        const entry = this.accessLogEntry(request, route, status, latencyMs, pointInTime);
        this.logger[level](`${request.method} ${entry.path} ${status}`, entry);
      }
      done();
    });
  }

  private accessLogEntry(request: FastifyRequest, route: string, status: number, latencyMs: number, pointInTime: boolean): AccessLogEntry {
    const entry: AccessLogEntry = {
      request_id: request.id,
      method: request.method,
      route,
      path: loggedPath(request.url),
      status,
      latency_ms: Math.round(latencyMs * 100) / 100,
    };
    const merchantId = (request as RequestWithPrincipal).principal?.merchant.id;
    if (merchantId !== undefined) entry.merchant_id = merchantId;
    if (pointInTime) entry.point_in_time = true;
    return entry;
  }

  private finished(request: FastifyRequest): void {
    if (!this.counted.delete(request)) return;
    this.inFlight -= 1;
    if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** From now on every new request gets a 503 (spec §7) with `Connection: close`. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Resolves true once no request is in flight, or false when `timeoutMs` passes first. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idle = this.idle.filter((r) => r !== done);
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idle.push(done);
    });
  }
}
