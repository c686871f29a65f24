/**
 * GET /health, /ready and /metrics, request ids and the access log, through the real app. The
 * event store is wrapped so a test can make it stop answering or hold the projections back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  RecordedEvent,
  Subscription,
} from '../../src/platform/event-store/event-store.js';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store.js';
import { ADMIN_TOKEN } from '../support/service.js';

/** The SQLite store, plus switches: `down` makes ping fail, `held` stops the live subscription from delivering. */
class SwitchableEventStore implements EventStore {
  down = false;
  private held = false;
  private release: (() => void)[] = [];
  constructor(readonly inner: SqliteEventStore) {}

  hold(): void {
    this.held = true;
  }
  resume(): void {
    this.held = false;
    for (const r of this.release.splice(0)) r();
  }
  append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.append(stream, events, expected);
  }
  readStream(stream: string): Promise<RecordedEvent[]> {
    return this.inner.readStream(stream);
  }
  readLastOfStream(stream: string): Promise<RecordedEvent | undefined> {
    return this.inner.readLastOfStream(stream);
  }
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.inner.readAll(options);
  }
  subscribe(after?: bigint): Subscription {
    const inner = this.inner.subscribe(after);
    const gate = async () => {
      while (this.held) await new Promise<void>((r) => this.release.push(r));
    };
    async function* gated(): AsyncGenerator<RecordedEvent> {
      for await (const event of inner) {
        await gate();
        yield event;
      }
    }
    const iterator = gated();
    return {
      [Symbol.asyncIterator]: () => iterator,
      close: async () => {
        await inner.close();
        this.resume();
      },
    };
  }
  headPosition(): Promise<bigint> {
    return this.inner.headPosition();
  }
  lastEventTime(): Promise<Date | undefined> {
    return this.inner.lastEventTime();
  }
  async ping(): Promise<void> {
    if (this.down) throw new Error('disk on fire');
    return this.inner.ping();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

interface LogCall {
  level: string;
  message: unknown;
  params: unknown[];
}

class RecordingLogger implements LoggerService {
  calls: LogCall[] = [];
  private record =
    (level: string) =>
    (message: unknown, ...params: unknown[]) => {
      this.calls.push({ level, message, params });
    };
  log = this.record('log');
  error = this.record('error');
  warn = this.record('warn');
  debug = this.record('debug');
  verbose = this.record('verbose');
  fatal = this.record('fatal');
  /** The structured fields of every access-log line. */
  access(): Record<string, unknown>[] {
    return this.calls.filter((c) => c.params.at(-1) === 'Http').map((c) => c.params.find((p) => typeof p === 'object') as Record<string, unknown>);
  }
}

describe('operations: health, readiness, metrics, request ids, access log', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'referral-ops-'));
  const events = new SwitchableEventStore(new SqliteEventStore({ path: join(dataDir, 'events.sqlite') }));
  const logger = new RecordingLogger();
  let app: NestFastifyApplication;
  let url: string;

  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(url + path, init);
    const text = await response.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, text, body };
  };
  const json = (method: string, path: string, body: unknown, auth?: string) =>
    call(path, { method, headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body: JSON.stringify(body) });

  beforeAll(async () => {
    const config = { ...loadConfig({ ADMIN_TOKEN, READY_MAX_LAG_EVENTS: '2', READY_MAX_LAG_SECONDS: '30', METRICS_PUBLIC: 'true' }), dataDir };
    app = await createApp({ config, eventStore: events, logger });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    events.resume();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('GET /health is 200 {"status":"ok"} without credentials, whatever Accept asks', async () => {
    const r = await call('/health', { headers: { accept: 'text/html' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('GET /ready is 200 when both stores answer and the read models are caught up', async () => {
    const r = await call('/ready');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready', read_models: { lag_events: 0, lag_seconds: 0 } });
  });

  it('GET /ready is 503 with {"errors": [...]} when the event store does not answer', async () => {
    events.down = true;
    try {
      const r = await call('/ready');
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ errors: ['the event store does not answer'] });
      expect((await call('/health')).status).toBe(200);
    } finally {
      events.down = false;
    }
    expect((await call('/ready')).status).toBe(200);
  });

  it('GET /ready is 503 while the read models are more events behind than allowed, and the lag gauge shows it', async () => {
    events.hold();
    try {
      for (let i = 0; i < 3; i += 1) {
        await events.inner.append(`test-lag-${i}`, [{ type: 'SomethingHappened', data: { i } }], 'no_stream');
      }
      const r = await call('/ready');
      expect(r.status).toBe(503);
      expect(r.body.errors).toEqual(['the read models are more than 2 events behind the event store']);
      const metrics = await call('/metrics');
      expect(metrics.text).toMatch(/^referral_projection_lag_events 3$/m);
      expect(metrics.text).toMatch(/^referral_projection_lag_seconds \d/m);
    } finally {
      events.resume();
    }
    for (let tries = 0; (await call('/ready')).status !== 200; tries += 1) {
      expect(tries).toBeLessThan(50);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await call('/metrics')).text).toMatch(/^referral_projection_lag_events 0$/m);
  });

  it('GET /metrics exposes request latency per method, route pattern and status, and process metrics', async () => {
    const created = await json('POST', '/admin/merchants', { name: 'Metered' }, `Bearer ${ADMIN_TOKEN}`);
    const { access_key, secret_key } = created.body.merchant;
    const token = (await json('POST', '/v2/tokens/merchant', { access_key, secret_key })).body.token;
    for (let i = 0; i < 3; i += 1) expect((await call('/v2/widgets', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await call('/v2/widgets/123', { headers: { authorization: `Bearer ${token}` } });
    await call('/no/such/route');
    const r = await call('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(r.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/v2\/widgets",status="200"\} 3$/m);
    expect(r.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/v2\/widgets\/:id",status="404"\} 1$/m);
    expect(r.text).toMatch(/^http_request_duration_seconds_bucket\{le="0\.5",method="GET",route="\/v2\/widgets",status="200"\} 3$/m);
    expect(r.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1$/m);
    expect(r.text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(r.text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(r.text).not.toContain('/v2/widgets/123');
  });

  it('echoes a sane X-Request-Id and makes one up otherwise, on every response', async () => {
    const given = await call('/v2/widgets', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.status).toBe(401);
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const insane = await call('/health', { headers: { 'x-request-id': 'a b"c' } });
    expect(insane.headers.get('x-request-id')).toMatch(uuid);
    expect((await call('/health')).headers.get('x-request-id')).toMatch(uuid);
    expect((await call('/no/such/route')).headers.get('x-request-id')).toMatch(uuid);
    const wrongMethod = await call('/v2/widgets', { method: 'PUT' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('x-request-id')).toMatch(uuid);
  });

  it('writes one access-log line per request with route, status, latency, request id and merchant, and no secrets', async () => {
    logger.calls = [];
    const created = await json('POST', '/admin/merchants', { name: 'Logged' }, `Bearer ${ADMIN_TOKEN}`);
    const { id, access_key, secret_key } = created.body.merchant;
    const token = (await json('POST', '/v2/tokens/merchant', { access_key, secret_key })).body.token;
    await call(`/v2/widgets?secret_key=${secret_key}`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'req-42' } });
    await call('/health');
    const lines = logger.access();
    const widget = lines.find((l) => l.request_id === 'req-42');
    expect(widget).toEqual({
      request_id: 'req-42',
      method: 'GET',
      route: '/v2/widgets',
      path: '/v2/widgets',
      // An unknown list parameter: refused after authentication, so the line names the merchant.
      status: 400,
      latency_ms: expect.any(Number),
      merchant_id: id,
    });
    expect(lines.filter((l) => l.route === '/admin/merchants' && l.status === 201)).toHaveLength(1);
    expect(lines.filter((l) => l.route === '/v2/tokens/merchant')).toHaveLength(1);
    // Probes are logged at verbose level, so production logs (info) skip them.
    expect(logger.calls.find((c) => (c.params[0] as { route?: string })?.route === '/health')?.level).toBe('verbose');
    const everything = JSON.stringify(logger.calls);
    for (const secret of [secret_key, token, ADMIN_TOKEN]) expect(everything).not.toContain(secret);
  });

  it('writes one access-log line for a sandbox request, with its route, merchant and the request id the client got', async () => {
    const basic = `Basic ${Buffer.from('ak_sandbox_sample_merchant_0001:sk_sandbox_sample_merchant_secret_0001').toString('base64')}`;
    // The sandbox's first generation may still be starting (503).
    let answer = await call('/sandbox/v1/campaigns', { headers: { authorization: basic } });
    for (let i = 0; i < 100 && answer.status === 503; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await call('/sandbox/v1/campaigns', { headers: { authorization: basic } });
    }
    expect(answer.status).toBe(200);
    for (const given of [undefined, 'sandbox-req-7']) {
      logger.calls = [];
      const response = await call('/sandbox/v1/campaigns', { headers: { authorization: basic, ...(given ? { 'x-request-id': given } : {}) } });
      const id = response.headers.get('x-request-id');
      if (given) expect(id).toBe(given);
      const lines = logger.access();
      expect(lines).toEqual([expect.objectContaining({ request_id: id, route: '/sandbox/v1/campaigns', status: 200, merchant_id: 1001 })]);
    }
  });
});
