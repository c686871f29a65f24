/**
 * What the service gives away without being asked (issue 28, item 10): /metrics is closed unless
 * METRICS_TOKEN or METRICS_PUBLIC is set, the access log shows no email address a path carried,
 * and ids, codes, SKUs and email addresses take no control or bidirectional formatting character.
 */
import type { LoggerService } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { Service, createMerchant, createWidget } from '../support/service.js';

class RecordingLogger implements LoggerService {
  lines: string[] = [];
  private record = (message: unknown, ...params: unknown[]) => {
    this.lines.push(JSON.stringify([message, ...params]));
  };
  log = this.record;
  error = this.record;
  warn = this.record;
  debug = this.record;
  verbose = this.record;
  fatal = this.record;
}

/** Service start-up dominates each test. */
const TEST_MS = 30_000;

describe('/metrics is closed by default', () => {
  it(
    'answers 404 with an errors body when neither METRICS_TOKEN nor METRICS_PUBLIC is set',
    async () => {
      const service = await Service.start();
      try {
        const closed = await service.get('/metrics');
        expect(closed.status).toBe(404);
        expect(closed.body.errors[0]).toMatch(/metrics are closed/);
        expect(closed.text).not.toMatch(/http_request/);
      } finally {
        await service.stop();
      }
    },
    TEST_MS,
  );

  it(
    'needs the token when METRICS_TOKEN is set, and is open with METRICS_PUBLIC=true',
    async () => {
      const guarded = await Service.start({ env: { METRICS_TOKEN: 'scrape-secret' } });
      try {
        expect((await guarded.get('/metrics')).status).toBe(401);
        expect((await guarded.get('/metrics', { auth: 'Bearer wrong' })).status).toBe(401);
        const scraped = await guarded.get('/metrics', { auth: 'Bearer scrape-secret' });
        expect(scraped.status).toBe(200);
        expect(scraped.text).toMatch(/^http_request_duration_seconds_count/m);
      } finally {
        await guarded.stop();
      }
      const open = await Service.start({ env: { METRICS_PUBLIC: 'true' } });
      try {
        expect((await open.get('/metrics')).status).toBe(200);
      } finally {
        await open.stop();
      }
    },
    TEST_MS,
  );
});

describe('personal data and spoofing characters', () => {
  const logger = new RecordingLogger();
  let service: Service;
  let store: EventStore;

  beforeAll(async () => {
    service = await Service.start({ logger });
    store = service.app.get<EventStore>(EVENT_STORE);
  }, TEST_MS);
  afterAll(() => service.stop());

  it(
    'logs an email address in a path as a placeholder',
    async () => {
      const m = await createMerchant(service);
      expect((await service.delete('/v1/email_opt_outs/opt@b.example', undefined, { auth: m.basic })).status).toBeLessThan(500);
      expect((await service.delete('/v2/email_opt_outs/opt2%40b.example', undefined, { auth: m.bearer })).status).toBeLessThan(500);
      const access = logger.lines.filter((line) => line.includes('email_opt_outs'));
      expect(access.length).toBeGreaterThanOrEqual(2);
      expect(access.join('\n')).toContain('/v1/email_opt_outs/:email');
      expect(access.join('\n')).toContain('/v2/email_opt_outs/:email');
      expect(logger.lines.join('\n')).not.toMatch(/opt@b\.example|opt2%40b\.example|opt2@b\.example/);
    },
    TEST_MS,
  );

  it(
    'refuses control and bidirectional formatting characters in ids, codes, SKUs and email addresses with a 400 naming the field, writing nothing',
    async () => {
      const m = await createMerchant(service, 'Spoof shop');
      const widget = await createWidget(service, m);
      const spoofing = ['a\u0000b', 'a\rb', 'a\nb', 'a\u007fb', 'a\u0085b', 'invoice\u202Etxt.exe', 'a\u2066b', 'a\u200Fb', 'a\u061Cb'];
      const cases: [string, string, (bad: string) => Record<string, unknown>, string, string][] = [
        ['POST', '/v2/customers', (bad) => ({ account_id: bad }), 'account_id', m.bearer],
        ['POST', '/v2/customers', (bad) => ({ account_id: 'ok-1', stripe_customer_id: bad }), 'stripe_customer_id', m.bearer],
        ['POST', '/v2/purchases', (bad) => ({ order_id: bad, email_address: 'buyer@example.com' }), 'order_id', m.bearer],
        [
          'POST',
          '/v2/purchases',
          (bad) => ({ order_id: 'o-1', email_address: 'buyer@example.com', products: [{ sku: bad, quantity: 1, price: 1 }] }),
          'products.0.sku',
          m.bearer,
        ],
        ['POST', '/v1/purchases', (bad) => ({ order_id: bad, campaign_id: widget.id, email_address: 'buyer@example.com' }), 'order_id', m.basic],
        ['POST', '/v2/purchases', (bad) => ({ order_id: 'o-2', email_address: 'buyer@example.com', referral_code: bad }), 'referral_code', m.bearer],
      ];
      for (const [method, path, body, property, auth] of cases) {
        for (const bad of spoofing) {
          const before = await store.headPosition();
          const reply = await service.request(method, path, { body: body(bad), auth });
          expect({ path, bad, status: reply.status, properties: (reply.body?.errors ?? []).map((e: { property?: string }) => e.property) }).toEqual({
            path,
            bad,
            status: 400,
            properties: [property],
          });
          expect((await store.readAll({ after: before })).filter((e) => !e.streamName.startsWith('webhook-reactor'))).toEqual([]);
        }
      }
      // In a query, and in a path parameter that names a code or an email address.
      const query = await service.get(`/v2/customers?account_id=${encodeURIComponent('x\u202Ey')}`, { auth: m.bearer });
      expect([query.status, query.body.errors[0].property]).toEqual([400, 'account_id']);
      const link = await service.get(`/l/${encodeURIComponent('AB\u202ECD')}`);
      expect([link.status, link.body.errors[0].property]).toEqual([400, 'code']);
      const optOut = await service.delete(`/v2/email_opt_outs/${encodeURIComponent('a\u202E@example.com')}`, undefined, { auth: m.bearer });
      expect([optOut.status, optOut.body.errors[0].property]).toEqual([400, 'email_address']);
      // U+202E in an email address, which class-validator's isEmail takes.
      const email = await service.post('/v2/customers', { account_id: 'bidi-email', email_address: 'moc.elpmaxe\u202E@example.com' }, { auth: m.bearer });
      expect([email.status, email.body.errors[0].property]).toEqual([400, 'email_address']);
      // Names and ids of ordinary scripts are still taken.
      const fine = await service.post('/v2/customers', { account_id: 'קוד-42', first_name: 'Ann\u200F', email_address: 'ann@example.com' }, { auth: m.bearer });
      expect(fine.status).toBe(201);
    },
    TEST_MS,
  );
});
