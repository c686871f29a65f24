/**
 * Webhook delivery end to end: real HTTP receivers on 127.0.0.1 inside jest, source events
 * appended to the event store as the features that own them will append them, and the delivery
 * log read back through the admin API. Signatures are checked here with node:crypto, not with
 * the service's own code. Retry timings are shrunk through the settings (200 ms / 1.5 s).
 */
import { spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ConversionAttributed,
  type RewardApproved,
  type RewardFacts,
  type RewardManuallyApproved,
  type RewardManuallyRejected,
  type RewardRejected,
} from '../../src/sales/index.js';
import type { EmailCaptured } from '../../src/email-captures/index.js';
import type { EmailOptedOut } from '../../src/email-opt-outs/index.js';
import { EVENT_STORE, EventStore, RecordedEvent } from '../../src/platform/event-store/event-store.js';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store.js';
import type { ShareCreated } from '../../src/shares/index.js';
import { ClientApiCaller } from '../../src/integrations/index.js';
import { ENDPOINT_CONCURRENCY, SHUTDOWN_GRACE_MS } from '../../src/webhooks/delivery/webhook-dispatcher.js';
import { REACTOR_CHECKPOINT_STREAM } from '../../src/webhooks/delivery/webhook-reactor.js';
import { Service, TestMerchant, createMerchant } from '../support/service.js';

const INTERVAL = 200;
// A whole number of intervals, as the defaults (24 h, 1 h) are: the last tick is the window's end.
const WINDOW = 1400;
const FAST = {
  METRICS_PUBLIC: 'true',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_INTERVAL_MS: String(INTERVAL),
  WEBHOOK_RETRY_WINDOW_MS: String(WINDOW),
};

// ---------------------------------------------------------------- receivers and helpers

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request had arrived in full. */
  at: number;
}

type Handler = (request: Received, response: ServerResponse, count: number) => void | Promise<void>;

/** An HTTP server on 127.0.0.1 that records every request and answers through `handler` (default 200). */
class Receiver {
  readonly requests: Received[] = [];
  private constructor(
    private readonly server: ReturnType<typeof createServer>,
    readonly url: string,
  ) {}

  static async start(
    handler: Handler = (_, res) => {
      res.end('ok');
    },
  ): Promise<Receiver> {
    let receiver: Receiver;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        receiver.requests.push(received);
        void handler(received, res, receiver.requests.length);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  on(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A URL nothing listens on. */
async function deadUrl(): Promise<string> {
  const r = await Receiver.start();
  await r.close();
  return `${r.url}/dead`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` returns something truthy, or fails after `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

const now = () => new Date().toISOString();
let seq = 1000;
const nextId = () => (seq += 1);

const sources = {
  share: (merchantId: number): ShareCreated['data'] => ({
    shareId: nextId(),
    merchantId,
    widgetId: 501,
    customerId: 601,
    referralCode: 'Sh4reC0de',
    channel: 'email',
    message: 'Get $10 off your first order',
    rewardEmailAddress: 'ada@example.com',
    emailRecipients: ['bob@example.com'],
    newsletterOptIn: false,
    sendReminder: true,
    ipAddress: '203.0.113.7',
    linkParameters: { utm_source: 'referral' },
    createdAt: now(),
  }),
  capture: (merchantId: number): EmailCaptured['data'] => ({
    emailCaptureId: nextId(),
    merchantId,
    widgetId: 501,
    emailAddress: 'carol@example.com',
    referralCode: null,
    newsletterOptIn: true,
    ipAddress: '203.0.113.8',
    createdAt: now(),
  }),
  optOut: (merchantId: number): EmailOptedOut['data'] => ({ merchantId, emailAddress: 'dave@example.com', jobId: null, optedOutAt: now() }),
  conversion: (merchantId: number): ConversionAttributed['data'] => ({
    conversionId: nextId(),
    merchantId,
    purchaseId: 801,
    widgetId: 501,
    referralCode: 'Sh4reC0de',
    couponCode: null,
    channel: 'email',
    source: { type: 'share', shareId: 701 },
    advocateCustomerId: 601,
    advocateEmailAddress: 'ada@example.com',
    friendCustomerId: 602,
    friendEmailAddress: 'bob@example.com',
    createdAt: now(),
  }),
  reward: (merchantId: number): RewardFacts => ({
    rewardId: nextId(),
    merchantId,
    conversionId: 901,
    purchaseId: 801,
    widgetId: 501,
    advocateCustomerId: 601,
    advocateEmailAddress: 'ada@example.com',
    rewardType: 'fixed_cash',
    amount: 10,
  }),
};

type Source =
  ShareCreated | EmailCaptured | EmailOptedOut | ConversionAttributed | RewardApproved | RewardManuallyApproved | RewardRejected | RewardManuallyRejected;

/** Appends a source event as its owning feature would: merchantId in data and metadata. */
async function append(service: Service, event: Source): Promise<RecordedEvent> {
  const store = service.app.get<EventStore>(EVENT_STORE);
  const merchantId = (event.data as { merchantId: number }).merchantId;
  const result = await store.append(`test-source-${randomUUID()}`, [{ type: event.type, data: event.data, metadata: { merchantId } }], 'no_stream');
  return result.events[0];
}

const conversion = (merchantId: number): ConversionAttributed => ({ type: 'ConversionAttributed', data: sources.conversion(merchantId) });

async function addEndpoint(service: Service, m: TestMerchant, url: string, events?: string[]): Promise<number> {
  const r = await service.post(`/admin/merchants/${m.id}/webhook_endpoints`, events ? { url, events } : { url }, service.admin);
  expect(r.status).toBe(201);
  return r.body.webhook_endpoint.id;
}

async function deliveries(service: Service, m: TestMerchant, query = ''): Promise<any[]> {
  const r = await service.get(`/admin/merchants/${m.id}/webhook_deliveries?limit=100${query}`, service.admin);
  expect(r.status).toBe(200);
  return r.body.results;
}

async function deliveryOf(service: Service, m: TestMerchant, endpointId: number, eventId: string): Promise<any | undefined> {
  return (await deliveries(service, m, `&endpoint_id=${endpointId}`)).find((d) => d.event_id === eventId);
}

function hmac(algorithm: 'sha1' | 'sha256', key: string | Buffer, text: string): string {
  return createHmac(algorithm, key).update(text).digest('base64');
}

// ---------------------------------------------------------------- the suite

describe('webhook delivery', () => {
  let service: Service;
  const receivers: Receiver[] = [];
  const receiver = async (handler?: Handler) => {
    const r = await Receiver.start(handler);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    service = await Service.start({ env: FAST });
  });
  afterAll(async () => {
    await service.stop();
    for (const r of receivers) await r.close();
  });

  it('signs with the new secret key once the admin rotated it', async () => {
    const m = await createMerchant(service);
    const hook = await receiver();
    await addEndpoint(service, m, `${hook.url}/hooks`);
    const secret = (await service.post(`/admin/merchants/${m.id}/secret_key`, undefined, service.admin)).body.merchant.secret_key as string;
    await append(service, conversion(m.id));
    const [request] = await until('the webhook', () => hook.requests.length > 0 && hook.requests);
    expect(request.headers['x-service-signature']).toBe(hmac('sha1', secret, request.body));
  });

  it('signs each request with X-SERVICE-SIGNATURE and the Standard Webhooks headers, in the documented envelope', async () => {
    const m = await createMerchant(service);
    const hook = await receiver();
    const endpointId = await addEndpoint(service, m, `${hook.url}/hooks`);
    const event = await append(service, conversion(m.id));
    const [request] = await until('the webhook', () => hook.requests.length > 0 && hook.requests);
    const before = Math.floor(Date.now() / 1000);

    expect(request.path).toBe('/hooks');
    expect(request.headers['content-type']).toBe('application/json');
    const data = event.data as ConversionAttributed['data'];
    expect(JSON.parse(request.body)).toEqual({
      id: event.id,
      type: 'conversion.created',
      created_at: event.createdAt.toISOString(),
      data: {
        conversion_id: data.conversionId,
        purchase_id: 801,
        widget_id: 501,
        referral_code: 'Sh4reC0de',
        coupon_code: null,
        channel: 'email',
        source: { type: 'share', share_id: 701 },
        advocate_customer_id: 601,
        advocate_email_address: 'ada@example.com',
        friend_customer_id: 602,
        friend_email_address: 'bob@example.com',
        created_at: data.createdAt,
      },
    });
    // Spec §5.3: Base64(HMAC-SHA1(secret key, body)).
    expect(request.headers['x-service-signature']).toBe(hmac('sha1', m.secretKey, request.body));
    // Standard Webhooks, key = the secret key's bytes (whsec_ + Base64(secret key)).
    const id = request.headers['webhook-id'] as string;
    const timestamp = request.headers['webhook-timestamp'] as string;
    expect(id).toBe(event.id);
    expect(Math.abs(Number(timestamp) - before)).toBeLessThanOrEqual(5);
    const whsec = `whsec_${Buffer.from(m.secretKey).toString('base64')}`;
    const key = Buffer.from(whsec.slice('whsec_'.length), 'base64');
    expect(request.headers['webhook-signature']).toBe(`v1,${hmac('sha256', key, `${id}.${timestamp}.${request.body}`)}`);
    expect(request.headers['x-service-signature']).not.toBe(hmac('sha1', 'another key', request.body));

    const delivery = await until('the delivery log', async () => {
      const d = await deliveryOf(service, m, endpointId, event.id);
      return d?.status === 'delivered' && d;
    });
    expect(delivery).toMatchObject({ endpoint_id: endpointId, kind: 'conversion.created', event_id: event.id, next_attempt_at: null, abandon_reason: null });
    expect(delivery.attempts).toEqual([
      { attempt: 1, at: expect.any(String), url: `${hook.url}/hooks`, status_code: 200, latency_ms: expect.any(Number), error: null, next_attempt_at: null },
    ]);
    const one = await service.get(`/admin/merchants/${m.id}/webhook_deliveries/${delivery.id}`, service.admin);
    expect(one.body.webhook_delivery).toEqual(delivery);
    const stranger = await createMerchant(service, 'Stranger');
    expect((await service.get(`/admin/merchants/${stranger.id}/webhook_deliveries/${delivery.id}`, service.admin)).status).toBe(404);
  });

  it('sends an endpoint only the kinds it subscribed to, only for its merchant and only events after its creation', async () => {
    const m = await createMerchant(service);
    const other = await createMerchant(service, 'Other');
    const hook = await receiver();
    const rewardsOnly = await addEndpoint(service, m, `${hook.url}/rewards`, ['reward.approved']);
    const everything = await addEndpoint(service, m, `${hook.url}/all`);
    await addEndpoint(service, other, `${hook.url}/other`);
    const at = now();
    const events: Source[] = [
      { type: 'ShareCreated', data: sources.share(m.id) },
      { type: 'EmailCaptured', data: sources.capture(m.id) },
      { type: 'EmailOptedOut', data: sources.optOut(m.id) },
      conversion(m.id),
      { type: 'RewardApproved', data: { ...sources.reward(m.id), evaluatedAt: at } },
      { type: 'RewardManuallyApproved', data: { ...sources.reward(m.id), by: 'ops@shop.example', reason: 'goodwill', decidedAt: at } },
      { type: 'RewardRejected', data: { ...sources.reward(m.id), reasons: ['same_email'], evaluatedAt: at } },
      { type: 'RewardManuallyRejected', data: { ...sources.reward(m.id), by: 'ops@shop.example', reason: null, decidedAt: at } },
    ];
    for (const event of events) await append(service, event);

    await until('every kind at the catch-all endpoint', () => hook.on('/all').length === 8);
    await until('the approvals at the rewards endpoint', () => hook.on('/rewards').length === 2);
    await sleep(3 * INTERVAL);
    const kinds = (path: string) =>
      hook
        .on(path)
        .map((r) => JSON.parse(r.body).type)
        .sort();
    expect(kinds('/all')).toEqual([
      'conversion.created',
      'email.captured',
      'email.opted_out',
      'reward.approved',
      'reward.approved',
      'reward.rejected',
      'reward.rejected',
      'share.created',
    ]);
    expect(kinds('/rewards')).toEqual(['reward.approved', 'reward.approved']);
    expect(hook.on('/other')).toEqual([]);
    const share = hook
      .on('/all')
      .map((r) => JSON.parse(r.body))
      .find((p) => p.type === 'share.created');
    expect(share.data).toMatchObject({ referral_code: 'Sh4reC0de', channel: 'email', reward_email_address: 'ada@example.com' });
    expect(share.data).not.toHaveProperty('email_recipients'); // the merchant may not see recipients

    // A new endpoint gets new events only.
    const late = await addEndpoint(service, m, `${hook.url}/late`);
    const fresh = await append(service, { type: 'EmailOptedOut', data: sources.optOut(m.id) });
    await until('the new event at the new endpoint', () => hook.on('/late').length === 1);
    await sleep(2 * INTERVAL);
    expect(hook.on('/late').map((r) => JSON.parse(r.body).id)).toEqual([fresh.id]);

    // The delivery log: filters and paging.
    expect(await deliveries(service, m, `&endpoint_id=${rewardsOnly}`)).toHaveLength(2);
    expect((await deliveries(service, m, '&kind=reward.rejected')).map((d) => d.endpoint_id)).toEqual([everything, everything]);
    expect(await deliveries(service, m, `&endpoint_id=${late}&status=delivered`)).toHaveLength(1);
    expect(await deliveries(service, m, '&status=pending')).toEqual([]);
    const pages: number[] = [];
    const seen = new Set<number>();
    for (let next: string | null = `/admin/merchants/${m.id}/webhook_deliveries?limit=4`; next;) {
      const page: { body: { results_count: number; results: { id: number }[]; next_page: string | null } } = await service.get(next, service.admin);
      pages.push(page.body.results_count);
      for (const d of page.body.results) seen.add(d.id);
      next = page.body.next_page?.slice(service.url.length) ?? null;
    }
    expect(pages).toEqual([4, 4, 4]); // rewards-only 2, catch-all 8 + 1, late 1: each once
    expect(seen.size).toBe(12);
  });

  it('adds custom headers; with replace_signature they replace both signatures', async () => {
    const m = await createMerchant(service);
    const hook = await receiver();
    await addEndpoint(service, m, `${hook.url}/hooks`);
    const headers = { 'X-Vendor': 'referral-service', Authorization: 'Bearer merchant-chosen' };
    expect((await service.put(`/admin/merchants/${m.id}/custom_headers`, { headers }, service.admin)).status).toBe(200);
    await append(service, conversion(m.id));
    const [signed] = await until('the first webhook', () => hook.requests.length === 1 && hook.requests);
    expect(signed.headers).toMatchObject({ 'x-vendor': 'referral-service', authorization: 'Bearer merchant-chosen' });
    expect(signed.headers['x-service-signature']).toBe(hmac('sha1', m.secretKey, signed.body));
    expect(signed.headers['webhook-signature']).toMatch(/^v1,/);

    await service.put(`/admin/merchants/${m.id}/custom_headers`, { headers, replace_signature: true }, service.admin);
    await append(service, conversion(m.id));
    const replaced = (await until('the second webhook', () => hook.requests.length === 2 && hook.requests))[1];
    expect(replaced.headers).toMatchObject({ 'x-vendor': 'referral-service', authorization: 'Bearer merchant-chosen' });
    expect(replaced.headers).not.toHaveProperty('x-service-signature');
    expect(replaced.headers).not.toHaveProperty('webhook-signature');
    expect(replaced.headers['webhook-id']).toBe(JSON.parse(replaced.body).id);
  });

  /** referral_webhook_deliveries_total by outcome, from /metrics. */
  const outcomes = async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const value = (outcome: string) => Number(new RegExp(`^referral_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { delivered: value('delivered'), failed: value('failed'), abandoned: value('abandoned'), depth: /^referral_webhook_queue_depth \d+$/m.test(text) };
  };

  it('retries a failing endpoint once per interval and stops at its first 200: four requests, one delivery', async () => {
    const before = await outcomes();
    const m = await createMerchant(service);
    const statuses = [500, 500, 503];
    const hook = await receiver((_, res, n) => {
      res.statusCode = statuses[n - 1] ?? 200;
      res.end();
    });
    const endpointId = await addEndpoint(service, m, `${hook.url}/flaky`);
    const event = await append(service, conversion(m.id));
    const delivery = await until('the delivery', async () => {
      const d = await deliveryOf(service, m, endpointId, event.id);
      return d?.status === 'delivered' && d;
    });
    expect(hook.requests).toHaveLength(4);
    expect(new Set(hook.requests.map((r) => r.body)).size).toBe(1); // the same request every time
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 503, 200]);
    expect(delivery.attempts[0].error).toMatch(/only 200 is success/);
    const first = Date.parse(delivery.attempts[0].at);
    delivery.attempts.forEach((a: { at: string; next_attempt_at: string | null }, i: number) => {
      // Once per interval on the grid of the first attempt, never earlier.
      expect(Date.parse(a.at) - first).toBeGreaterThanOrEqual(i * INTERVAL);
      if (i < 3) expect(Date.parse(a.next_attempt_at!)).toBe(first + (i + 1) * INTERVAL);
    });
    await sleep(3 * INTERVAL);
    expect(hook.requests).toHaveLength(4);
    // Operators see it in /metrics (docs/operations.md); other tests' deliveries may add to it meanwhile.
    const after = await outcomes();
    expect(after.depth).toBe(true);
    expect(after.failed - before.failed).toBeGreaterThanOrEqual(3);
    expect(after.delivered - before.delivered).toBeGreaterThanOrEqual(1);
  });

  it('counts a 201 and a redirect as failures, never follows the redirect, and abandons pending deliveries of a deleted endpoint', async () => {
    const m = await createMerchant(service);
    const hook = await receiver((request, res) => {
      if (request.path === '/created') res.writeHead(201).end('{}');
      else if (request.path === '/moved') res.writeHead(302, { Location: '/target' }).end();
      else res.end('ok');
    });
    const created = await addEndpoint(service, m, `${hook.url}/created`);
    const moved = await addEndpoint(service, m, `${hook.url}/moved`);
    const event = await append(service, conversion(m.id));
    const attemptsOf = async (endpointId: number, n: number) =>
      until(`${n} attempts`, async () => {
        const d = await deliveryOf(service, m, endpointId, event.id);
        return d?.attempts.length >= n && d;
      });
    const d201 = await attemptsOf(created, 2);
    const d302 = await attemptsOf(moved, 2);
    expect(d201.attempts.slice(0, 2).map((a: { status_code: number }) => a.status_code)).toEqual([201, 201]);
    expect(d201.attempts[0].error).toBe('unexpected status 201: only 200 is success');
    expect(d302.attempts.slice(0, 2).map((a: { status_code: number }) => a.status_code)).toEqual([302, 302]);
    expect(d302.attempts[0].error).toBe('redirect (302) not followed (Location: /target)');
    expect(hook.on('/target')).toEqual([]);
    expect(d201.status === 'pending' || d201.abandon_reason === 'retry_window_exhausted').toBe(true);

    for (const endpointId of [created, moved]) {
      expect((await service.delete(`/admin/merchants/${m.id}/webhook_endpoints/${endpointId}`, undefined, service.admin)).status).toBe(204);
    }
    for (const endpointId of [created, moved]) {
      const d = await until('the abandonment', async () => {
        const x = await deliveryOf(service, m, endpointId, event.id);
        return x?.status === 'abandoned' && x;
      });
      expect(['endpoint_deleted', 'retry_window_exhausted']).toContain(d.abandon_reason);
    }
    const count = hook.requests.length;
    await sleep(2 * INTERVAL);
    expect(hook.requests).toHaveLength(count);
    const again = await service.post(`/admin/merchants/${m.id}/webhook_deliveries/${d201.id}/redeliver`, undefined, service.admin);
    expect(again.status).toBe(409);
  });

  it('abandons a dead endpoint once the retry window has run out', async () => {
    const before = await outcomes();
    const m = await createMerchant(service);
    const url = await deadUrl();
    const endpointId = await addEndpoint(service, m, url);
    const event = await append(service, conversion(m.id));
    const delivery = await until(
      'the abandonment',
      async () => {
        const d = await deliveryOf(service, m, endpointId, event.id);
        return d?.status === 'abandoned' && d;
      },
      WINDOW + 3000,
    );
    expect(delivery.abandon_reason).toBe('retry_window_exhausted');
    expect(delivery.next_attempt_at).toBeNull();
    const attempts = delivery.attempts as { at: string; status_code: number | null; error: string; next_attempt_at: string | null }[];
    // 0, 200, …, 1400 ms: at most 8, fewer only if ticks were missed.
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    // The last tick, at the window's end, is sent too (it was given up unsent when it came a moment late).
    expect(Date.parse(attempts[attempts.length - 1].at) - Date.parse(attempts[0].at)).toBeGreaterThanOrEqual(WINDOW);
    expect((await outcomes()).abandoned - before.abandoned).toBeGreaterThanOrEqual(1);
    expect(attempts.length).toBeLessThanOrEqual(Math.floor(WINDOW / INTERVAL) + 1);
    expect(attempts.every((a) => a.status_code === null && a.error === 'connection refused')).toBe(true);
    expect(attempts[attempts.length - 1].next_attempt_at).toBeNull();
    const first = Date.parse(attempts[0].at);
    expect(Date.parse(attempts[attempts.length - 1].at) - first).toBeLessThanOrEqual(WINDOW + 400);
  });

  it('redelivers on request: the same body and webhook-id once more', async () => {
    const m = await createMerchant(service);
    const hook = await receiver();
    const endpointId = await addEndpoint(service, m, `${hook.url}/hooks`);
    const event = await append(service, conversion(m.id));
    const delivered = await until('the delivery', async () => {
      const d = await deliveryOf(service, m, endpointId, event.id);
      return d?.status === 'delivered' && d;
    });
    await sleep(2 * INTERVAL);
    expect(hook.requests).toHaveLength(1);

    const redeliver = await service.post(`/admin/merchants/${m.id}/webhook_deliveries/${delivered.id}/redeliver`, undefined, service.admin);
    expect(redeliver.status).toBe(202);
    expect(redeliver.body.webhook_delivery).toMatchObject({ id: delivered.id, status: 'pending', delivered_at: null });
    await until('the second request', () => hook.requests.length === 2);
    expect(hook.requests[1].body).toBe(hook.requests[0].body);
    expect(hook.requests[1].headers['webhook-id']).toBe(event.id);
    const after = await until('the second delivery', async () => {
      const d = await deliveryOf(service, m, endpointId, event.id);
      return d?.status === 'delivered' && d.attempts.length === 2 && d;
    });
    expect(after.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
      [1, 200],
      [2, 200],
    ]);
    await sleep(2 * INTERVAL);
    expect(hook.requests).toHaveLength(2);
    const stranger = await createMerchant(service, 'Stranger');
    expect((await service.post(`/admin/merchants/${stranger.id}/webhook_deliveries/${delivered.id}/redeliver`, undefined, service.admin)).status).toBe(404);
  });

  it('sends a redelivery asked for while an attempt is in flight: the answer to the earlier request does not count for it', async () => {
    const m = await createMerchant(service);
    // Each answer comes late, so the redelivery is asked for before the first one is in.
    const hook = await receiver((_, res) => void setTimeout(() => res.end('ok'), 600));
    const endpointId = await addEndpoint(service, m, `${hook.url}/slow`);
    const event = await append(service, conversion(m.id));
    await until('the first request', () => hook.requests.length === 1);
    const pending = await until('the delivery', () => deliveryOf(service, m, endpointId, event.id));
    const redeliver = await service.post(`/admin/merchants/${m.id}/webhook_deliveries/${pending.id}/redeliver`, undefined, service.admin);
    expect(redeliver.status).toBe(202);
    await until("the redelivery's request", () => hook.requests.length === 2, 4000);
    const after = await until('the redelivery', async () => {
      const d = await deliveryOf(service, m, endpointId, event.id);
      return d?.status === 'delivered' && d.attempts.length === 2 && d;
    });
    expect(hook.requests[1].body).toBe(hook.requests[0].body);
    expect(after.attempts.map((a: { attempt: number; status_code: number; next_attempt_at: string | null }) => [a.attempt, a.status_code])).toEqual([
      [1, 200],
      [2, 200],
    ]);
    // The first attempt's answer left the redelivery due, as asked (not delivered, not put off).
    expect(after.attempts[0]).toMatchObject({ before_redelivery: true, next_attempt_at: redeliver.body.webhook_delivery.next_attempt_at });
    expect(after.attempts[1].before_redelivery).toBeUndefined();
    await sleep(2 * INTERVAL);
    expect(hook.requests).toHaveLength(2);
  });

  it("does not let one merchant's slow endpoint hold up another merchant's delivery", async () => {
    const slowMerchant = await createMerchant(service, 'Slow');
    const fastMerchant = await createMerchant(service, 'Fast');
    const finished: number[] = [];
    const slow = await receiver((_, res) => {
      setTimeout(() => {
        res.end('ok');
        finished.push(Date.now());
      }, 3000);
    });
    const fast = await receiver();
    await addEndpoint(service, slowMerchant, `${slow.url}/slow`);
    await addEndpoint(service, fastMerchant, `${fast.url}/fast`);
    const start = Date.now();
    await append(service, conversion(slowMerchant.id));
    await append(service, conversion(slowMerchant.id));
    await until('the slow endpoint to be busy', () => slow.requests.length === 2);
    await append(service, conversion(fastMerchant.id));
    const [arrived] = await until("the other merchant's webhook", () => fast.requests.length === 1 && fast.requests);
    expect(finished).toEqual([]); // the slow endpoint is still answering
    expect(arrived.at - start).toBeLessThan(1500);
    await until('the slow deliveries', () => finished.length === 2, 6000);
    expect(Math.min(...finished) - arrived.at).toBeGreaterThan(1000);
  });

  it(`keeps at most ${ENDPOINT_CONCURRENCY} requests in flight to one endpoint while earlier attempts are being recorded, and delivers each event once`, async () => {
    let open = 0;
    let most = 0;
    const hook = await receiver((_, res) => {
      open += 1;
      most = Math.max(most, open);
      setTimeout(() => {
        open -= 1;
        res.end('ok');
      }, 100);
    });
    const m = await createMerchant(service, 'Busy');
    await addEndpoint(service, m, `${hook.url}/hooks`);
    for (let i = 0; i < 8; i += 1) await append(service, conversion(m.id));
    await until('every delivery', () => hook.requests.length === 8, 8000);
    await new Promise((r) => setTimeout(r, 300));
    expect(most).toBe(ENDPOINT_CONCURRENCY);
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id'])).size).toBe(8);
    expect(hook.requests).toHaveLength(8);
  });

  it('calls the client API with the same signing, X-SERVICE-SIGNATURE-V2 for reward validation', async () => {
    const m = await createMerchant(service);
    const api = await receiver((request, res) => {
      if (request.path === '/validate') res.writeHead(200, { 'content-type': 'application/json' }).end('{"approved": false, "reason": "order refunded"}');
      else if (request.path === '/share') res.writeHead(200).end('{"action":"replace_message","message":"Hello from the shop"}');
      else if (request.path === '/empty') res.writeHead(200).end();
      else if (request.path === '/moved') res.writeHead(301, { Location: '/validate' }).end();
      else res.writeHead(500).end('oops');
    });
    await service.put(`/admin/merchants/${m.id}/custom_headers`, { headers: { 'X-Vendor': 'acme' } }, service.admin);
    const caller = service.app.get(ClientApiCaller);
    const body = { type: 'reward_validation', reward: { reward_id: 1, amount: 10 } };

    const validated = await caller.call(m.id, 'reward_validation', `${api.url}/validate`, body, { id: 'reward-1' });
    expect(validated).toEqual({ ok: true, status: 200, json: { approved: false, reason: 'order refunded' } });
    const [v] = api.on('/validate');
    expect(v.body).toBe(JSON.stringify(body));
    expect(v.headers['x-service-signature-v2']).toBe(hmac('sha1', m.secretKey, v.body));
    expect(v.headers).not.toHaveProperty('x-service-signature');
    expect(v.headers['webhook-id']).toBe('reward-1');
    const key = Buffer.from(m.secretKey);
    expect(v.headers['webhook-signature']).toBe(`v1,${hmac('sha256', key, `reward-1.${v.headers['webhook-timestamp']}.${v.body}`)}`);
    expect(v.headers['x-vendor']).toBe('acme');
    expect(v.headers['content-type']).toBe('application/json');

    const shared = await caller.call(m.id, 'share_instructions', `${api.url}/share`, { type: 'share_instructions', share: {} });
    expect(shared).toEqual({ ok: true, status: 200, json: { action: 'replace_message', message: 'Hello from the shop' } });
    const [s] = api.on('/share');
    expect(s.headers['x-service-signature']).toBe(hmac('sha1', m.secretKey, s.body));
    expect(s.headers).not.toHaveProperty('x-service-signature-v2');

    expect(await caller.call(m.id, 'share_instructions', `${api.url}/empty`, {})).toEqual({ ok: true, status: 200, json: null });
    expect(await caller.call(m.id, 'reward_validation', `${api.url}/broken`, {})).toEqual({
      ok: false,
      status: 500,
      error: 'unexpected status 500: only 200 is success',
    });
    expect(await caller.call(m.id, 'reward_validation', `${api.url}/moved`, {})).toEqual({
      ok: false,
      status: 301,
      error: 'redirect (301) not followed (Location: /validate)',
    });
    expect(api.on('/validate')).toHaveLength(1);
    expect(await caller.call(m.id, 'reward_validation', await deadUrl(), {})).toEqual({ ok: false, status: null, error: 'connection refused' });
  });

  it('is accepted by the verification example of docs/webhooks.md, which refuses a forged request', async () => {
    const doc = readFileSync(join(process.cwd(), 'docs/webhooks.md'), 'utf8');
    const code = /<!-- verify-example:start -->\s*```js\n([\s\S]*?)```\s*<!-- verify-example:end -->/.exec(doc)?.[1];
    expect(code).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'referral-verify-'));
    writeFileSync(join(dir, 'verify-webhooks.mjs'), code!);
    const m = await createMerchant(service);
    const child = spawn(process.execPath, [join(dir, 'verify-webhooks.mjs')], { env: { ...process.env, SECRET_KEY: m.secretKey, PORT: '0' } });
    let output = '';
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (\d+)/.exec(output);
          if (match) resolve(Number(match[1]));
        });
        child.on('exit', (code) => reject(new Error(`the example exited with ${code}`)));
      });
      const url = `http://127.0.0.1:${port}/hooks`;
      const endpointId = await addEndpoint(service, m, url);
      const event = await append(service, conversion(m.id));
      const d = await until('the verified delivery', async () => {
        const x = await deliveryOf(service, m, endpointId, event.id);
        return x?.attempts.length > 0 && x;
      });
      expect(d.attempts[0]).toMatchObject({ status_code: 200, error: null });
      expect(d.status).toBe('delivered');
      await until('the example to log it', () => output.includes(`verified conversion.created ${event.id}`));
      const validation = await service.app.get(ClientApiCaller).call(m.id, 'reward_validation', url, { type: 'reward_validation', reward: {} });
      expect(validation).toMatchObject({ ok: true, status: 200 });

      const body = JSON.stringify({ id: 'forged', type: 'reward.approved', created_at: now(), data: {} });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const forged = await fetch(url, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-service-signature': hmac('sha1', 'not the secret key', body),
          'webhook-id': 'forged',
          'webhook-timestamp': timestamp,
          'webhook-signature': `v1,${hmac('sha256', Buffer.from(m.secretKey), `forged.${timestamp}.${body}`)}`,
        },
      });
      expect(forged.status).toBe(401);
      const stale = String(Math.floor(Date.now() / 1000) - 3600);
      const replayed = await fetch(url, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-service-signature': hmac('sha1', m.secretKey, body),
          'webhook-id': 'forged',
          'webhook-timestamp': stale,
          'webhook-signature': `v1,${hmac('sha256', Buffer.from(m.secretKey), `forged.${stale}.${body}`)}`,
        },
      });
      expect(replayed.status).toBe(401);
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('webhook timeout', () => {
  it('gives up on an endpoint that does not answer within WEBHOOK_TIMEOUT_MS', async () => {
    const service = await Service.start({ env: { ...FAST, WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_WINDOW_MS: '0' } });
    const silent = await Receiver.start(() => undefined);
    try {
      const m = await createMerchant(service);
      const endpointId = await addEndpoint(service, m, `${silent.url}/silent`);
      const event = await append(service, conversion(m.id));
      const d = await until('the timed-out attempt', async () => {
        const x = await deliveryOf(service, m, endpointId, event.id);
        return x?.status === 'abandoned' && x;
      });
      expect(d.attempts).toEqual([expect.objectContaining({ status_code: null, error: 'timed out after 300 ms' })]);
      expect(d.attempts[0].latency_ms).toBeGreaterThanOrEqual(290);
      expect(silent.requests).toHaveLength(1);
    } finally {
      await service.stop();
      await silent.close();
    }
  });
});

describe('webhook delivery across restarts', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'referral-webhooks-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('goes on with the schedule after a restart on the same DATA_DIR, without loss or duplicate', async () => {
    const env = { ...FAST, WEBHOOK_RETRY_INTERVAL_MS: '400', WEBHOOK_RETRY_WINDOW_MS: '20000' };
    const hook = await Receiver.start((request, res) => {
      // The flaky endpoint fails twice, then succeeds; the steady one always succeeds.
      res.statusCode = request.path === '/flaky' && hook.on('/flaky').length <= 2 ? 500 : 200;
      res.end();
    });
    let first: Service | undefined = await Service.start({ dataDir, env });
    let second: Service | undefined;
    try {
      const m = await createMerchant(first);
      const flakyEndpoint = await addEndpoint(first, m, `${hook.url}/flaky`, ['conversion.created']);
      const steadyEndpoint = await addEndpoint(first, m, `${hook.url}/steady`, ['share.created']);
      const retried = await append(first, conversion(m.id));
      await until('the first failed attempt', async () => (await deliveryOf(first!, m, flakyEndpoint, retried.id))?.attempts.length === 1);
      // Created after the conversion: must not get it, not even from the rescan below.
      await addEndpoint(first, m, `${hook.url}/late`, ['conversion.created']);
      // Appended right before the stop: delivered before it or after the restart, exactly once.
      const lastMinute = await append(first, { type: 'ShareCreated', data: sources.share(m.id) });
      await first.stop(true);
      first = undefined;
      // While it is down: the reactor's durable checkpoint covers the log it read; then it is
      // rewound to 0, as after a crash before any checkpoint, so the restart rescans everything.
      const store = new SqliteEventStore({ path: join(dataDir, 'events.sqlite') });
      const checkpoints = await store.readStream(REACTOR_CHECKPOINT_STREAM);
      expect(BigInt((checkpoints[checkpoints.length - 1].data as { position: string }).position)).toBeGreaterThanOrEqual(lastMinute.position);
      await store.append(REACTOR_CHECKPOINT_STREAM, [{ type: 'WebhookReactorCheckpointed', data: { position: '0', checkpointedAt: now() } }], 'any');
      await store.close();
      await sleep(500); // the second attempt falls due while the service is down

      second = await Service.start({ dataDir, env });
      const done = await until(
        'the delivery after the restart',
        async () => {
          const d = await deliveryOf(second!, m, flakyEndpoint, retried.id);
          return d?.status === 'delivered' && d;
        },
        8000,
      );
      await until('the last-minute event', () => hook.on('/steady').length === 1);
      await sleep(1000); // room for any duplicate to show
      expect(hook.on('/flaky')).toHaveLength(3);
      expect(new Set(hook.on('/flaky').map((r) => r.headers['webhook-id']))).toEqual(new Set([retried.id]));
      expect(done.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
      expect(hook.on('/steady').map((r) => r.headers['webhook-id'])).toEqual([lastMinute.id]);
      expect(hook.on('/late')).toEqual([]);
      // One delivery per (endpoint, event): the full rescan after the restart scheduled nothing twice.
      const all = await deliveries(second, m);
      expect(all.map((d) => [d.endpoint_id, d.event_id])).toEqual([
        [flakyEndpoint, retried.id],
        [steadyEndpoint, lastMinute.id],
      ]);
      expect(all.every((d) => d.status === 'delivered')).toBe(true);
    } finally {
      await first?.stop(true);
      await second?.stop(true);
      await hook.close();
    }
  });

  it('sends nothing after the retry window, even when the service was down when it closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'referral-webhooks-window-'));
    const env = { ...FAST, WEBHOOK_RETRY_INTERVAL_MS: '300', WEBHOOK_RETRY_WINDOW_MS: '900' };
    const hook = await Receiver.start((_, res) => {
      res.statusCode = 503;
      res.end();
    });
    let service: Service | undefined = await Service.start({ dataDir: dir, env });
    try {
      const m = await createMerchant(service);
      const endpointId = await addEndpoint(service, m, `${hook.url}/down`);
      const event = await append(service, conversion(m.id));
      await until('the first failed attempt', async () => (await deliveryOf(service!, m, endpointId, event.id))?.attempts.length === 1);
      await service.stop(true);
      await sleep(1200); // the window (900 ms from the first attempt) closes while the service is down
      const sent = hook.requests.length;
      service = await Service.start({ dataDir: dir, env });
      const abandoned = await until('the abandonment', async () => {
        const d = await deliveryOf(service!, m, endpointId, event.id);
        return d?.status === 'abandoned' && d;
      });
      expect(abandoned.abandon_reason).toBe('retry_window_exhausted');
      expect(hook.requests).toHaveLength(sent);
      const first = Date.parse(abandoned.attempts[0].at);
      expect(abandoned.attempts.every((a: { at: string }) => Date.parse(a.at) - first <= 900)).toBe(true);
    } finally {
      await service?.stop();
      await hook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sends a request cut off by a shutdown again after the restart: at least once, never lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'referral-webhooks-cut-'));
    const env = { ...FAST, WEBHOOK_RETRY_WINDOW_MS: '20000' }; // the default 10 s timeout
    // The first request is answered after the shutdown's grace period: it is cut off.
    let late: NodeJS.Timeout | undefined;
    const hook = await Receiver.start((_, res, n) => {
      if (n === 1) late = setTimeout(() => res.end('ok'), SHUTDOWN_GRACE_MS + 2000);
      else res.end('ok');
    });
    let first: Service | undefined = await Service.start({ dataDir: dir, env });
    let second: Service | undefined;
    try {
      const m = await createMerchant(first);
      const endpointId = await addEndpoint(first, m, `${hook.url}/hooks`);
      const event = await append(first, conversion(m.id));
      await until('the request in flight', () => hook.requests.length === 1);
      const stopping = Date.now();
      await first.stop(true);
      first = undefined;
      expect(Date.now() - stopping).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_MS - 100);
      expect(Date.now() - stopping).toBeLessThan(SHUTDOWN_GRACE_MS + 1500);

      second = await Service.start({ dataDir: dir, env });
      const d = await until('the delivery after the restart', async () => {
        const x = await deliveryOf(second!, m, endpointId, event.id);
        return x?.status === 'delivered' && x;
      });
      // The cut-off request was never recorded as an attempt; the event went out again.
      expect(d.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([[1, 200]]);
      expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
    } finally {
      await first?.stop(true);
      await second?.stop(true);
      clearTimeout(late);
      await hook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
