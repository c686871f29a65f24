/**
 * POST /v2/user_data/delete (docs/privacy.md): a person's address, name and IP address are gone
 * from every answer (v1, v2, admin, audit, point-in-time), from every read model after a restart
 * and after a rebuild, and from every byte under DATA_DIR; an opt-out still holds; the merchant
 * hears of it (user_data.deleted) and the notification address gets a confirmation.
 */
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/platform/config.js';
import { MemoryReadStore } from '../../src/platform/read-store/memory-read-store.js';
import { systemClock } from '../../src/platform/clock.js';
import { createServiceEventStore, serviceProjectionsFor } from '../../src/operations/index.js';
import { dumpReadModels, rebuildReadModels } from '../../src/operations/rebuild.js';
import { filesContaining } from '../support/bytes-on-disk.js';
import {
  E2E_EVENTSTORE_URL,
  E2E_MONGO_URL,
  e2eDatabase,
  Service,
  TestMerchant,
  createMerchant,
  createWidget,
  eventually,
  serviceForSuite,
} from '../support/service.js';

const ADVOCATE = 'Annabel.Erasmus@Example.com';
const FIRST = 'Annabel';
const LAST = 'Erasmus';
const ADVOCATE_IP = '203.0.113.77';
const FRIEND = 'fritz.friend@example.com';
const FRIEND_IP = '198.51.100.23';
const OTHER_RECIPIENT = 'olga.other@example.com';
const SECRET_MESSAGE = 'Psst from Annabel, use my link';
/** What must be gone: the address (as sent and lower-cased), the names, the advocate's IP and message. */
const ERASED = [ADVOCATE, ADVOCATE.toLowerCase(), FIRST, LAST, ADVOCATE_IP, SECRET_MESSAGE];

const ENV = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_INTERVAL_MS: '200' };

interface Hook {
  url: string;
  bodies: { type: string; data: Record<string, unknown> }[];
  close(): Promise<void>;
}

async function receiver(): Promise<Hook> {
  const bodies: Hook['bodies'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Everything a merchant, an admin or an auditor can read about the merchant, as one text. */
async function everyAnswer(service: Service, m: TestMerchant, ids: { customer: number; share: number; purchase: number; conversion: number }): Promise<string> {
  const a = { auth: m.bearer };
  const v1 = { auth: m.basic };
  const path = (p: string) => `path=${encodeURIComponent(p)}`;
  const paths: [string, { auth: string }][] = [
    ['/v2/customers?limit=100', a],
    [`/v2/customers/${ids.customer}`, a],
    ['/v2/shares?limit=100', a],
    [`/v2/shares/${ids.share}`, a],
    ['/v2/reminder_emails?limit=100', a],
    ['/v2/email_captures?limit=100', a],
    ['/v2/purchases?limit=100', a],
    ['/v2/conversions?limit=100', a],
    ['/v2/rewards?limit=100', a],
    ['/v2/personal_referral_links?limit=100', a],
    ['/v2/email_opt_outs?limit=100', a],
    ['/v2/audit/events?limit=100', a],
    [`/v2/audit/entities/customer:${ids.customer}?limit=100`, a],
    [`/v2/audit/entities/share:${ids.share}?limit=100`, a],
    ['/v1/customers?limit=100', v1],
    [`/v1/customers/${ids.customer}`, v1],
    ['/v1/shares?limit=100', v1],
    ['/v1/purchases?limit=100', v1],
    ['/v1/conversions?limit=100', v1],
    ['/v1/rewards?limit=100', v1],
    [`/admin/merchants/${m.id}/outbox?limit=100`, service.admin],
    [`/admin/merchants/${m.id}/webhook_deliveries?limit=100`, service.admin],
    [`/admin/merchants/${m.id}/as_of?position=1000000000&${path('/v2/customers?limit=100')}`, service.admin],
    [`/admin/merchants/${m.id}/as_of?position=1000000000&${path('/v2/shares?limit=100')}`, service.admin],
    [`/admin/merchants/${m.id}/as_of?position=1000000000&${path('/v2/purchases?limit=100')}`, service.admin],
  ];
  const texts: string[] = [];
  for (const [p, auth] of paths) {
    const reply = await service.get(p, auth);
    expect([p, reply.status]).toEqual([p, 200]);
    texts.push(reply.text);
  }
  return texts.join('\n');
}

const found = (text: string, needles: readonly string[]) => needles.filter((n) => text.toLowerCase().includes(n.toLowerCase()));

describe('personal data erasure (POST /v2/user_data/delete)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'referral-erasure-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('erases a person from every answer, every read model and every byte on disk, and keeps the opt-out', async () => {
    const hook = await receiver();
    let service: Service | undefined = await Service.start({ dataDir, env: ENV });
    try {
      const m = await createMerchant(service, 'Erasure shop');
      const other = await createMerchant(service, 'Other shop');
      const a = { auth: m.bearer };
      await service.post(`/admin/merchants/${m.id}/webhook_endpoints`, { url: hook.url }, service.admin);
      const widget = await createWidget(service, m);
      // The same address at another merchant is another merchant's data: it stays.
      await service.post('/v2/customers', { account_id: 'o-1', email_address: ADVOCATE, first_name: FIRST }, { auth: other.bearer });

      const customer = (await service.post('/v2/customers', { account_id: 'ann-1', email_address: ADVOCATE, first_name: FIRST, last_name: LAST }, a)).body
        .customer;
      const link = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, a)).body.referral_link;
      const share = (
        await service.post(
          '/v2/shares',
          {
            widget_id: widget.id,
            customer_id: customer.id,
            reward_email_address: ADVOCATE,
            email_recipients: [FRIEND, OTHER_RECIPIENT],
            message: SECRET_MESSAGE,
            ip_address: ADVOCATE_IP,
          },
          a,
        )
      ).body.share;
      expect(share).toBeDefined();
      expect((await service.post('/v2/email_captures', { widget_id: widget.id, email_address: ADVOCATE }, a)).status).toBe(201);
      const purchase = (
        await service.post(
          '/v2/purchases',
          { order_id: 'order-1', referral_code: link.code, email_address: FRIEND, ip_address: FRIEND_IP, payment_amount: 50 },
          a,
        )
      ).body.purchase;
      // The advocate's own purchase: erased with her.
      await service.post('/v2/purchases', { order_id: 'order-2', email_address: ADVOCATE, ip_address: ADVOCATE_IP, customer_id: customer.id }, a);
      // Opted out before the erasure: must stay suppressed after it.
      expect((await service.post('/v2/email_opt_out_jobs', { email_addresses: [ADVOCATE] }, a)).status).toBe(202);
      const conversion = await eventually(async () => {
        const list = (await service!.get('/v2/conversions?limit=10', a)).body.results;
        expect(list).toHaveLength(1);
        return list[0];
      });
      await eventually(async () => expect(hook.bodies.map((b) => b.type)).toEqual(expect.arrayContaining(['conversion.created', 'share.created'])));
      await eventually(async () => expect((await service!.get('/v2/email_opt_outs', a)).body.results).toHaveLength(1));
      const ids = { customer: customer.id, share: share.id, purchase: purchase.id, conversion: conversion.id };
      expect(found(await everyAnswer(service, m, ids), ERASED)).toEqual(ERASED);

      const job = await service.post('/v2/user_data/delete', { email_addresses: [ADVOCATE], notification_email: 'dpo@erasure-shop.example' }, a);
      expect(job.status).toBe(202);
      expect(job.body.user_data_deletion).toMatchObject({ status: 'processing', email_addresses_count: 1, notification_email_given: true });
      const jobId = job.body.user_data_deletion.id;
      const done = await eventually(async () => {
        const read = await service!.get(`/v2/user_data/delete/${jobId}`, a);
        expect(read.body.user_data_deletion.status).toBe('completed');
        return read.body.user_data_deletion;
      }, 10_000);
      expect(done).toMatchObject({ customers_erased_count: 1, completed_at: expect.any(String) });
      expect(done.documents_scrubbed_count).toBeGreaterThan(5);
      expect((await service.get(`/v1/user_data/delete/${jobId}`, { auth: m.basic })).body).toEqual(done);

      const after = await everyAnswer(service, m, ids);
      expect(found(after, ERASED)).toEqual([]);
      // Aggregates, money and the other people stay.
      expect(found(after, [FRIEND, OTHER_RECIPIENT, FRIEND_IP])).toEqual([FRIEND, OTHER_RECIPIENT, FRIEND_IP]);
      const conversions = (await service.get('/v2/conversions', a)).body.results;
      expect(conversions).toHaveLength(1);
      expect(conversions[0]).toMatchObject({ id: conversion.id, advocate_email_address: null });
      expect((await service.get(`/v2/customers/${customer.id}`, a)).body.customer).toMatchObject({
        id: customer.id,
        email_address: null,
        first_name: null,
        last_name: null,
      });
      expect((await service.get('/v2/purchases?limit=10', a)).body.results.map((p: { payment_amount: number | null }) => p.payment_amount)).toContain(50);
      // The other merchant's customer with the same address is untouched.
      expect(found((await service.get('/v2/customers', { auth: other.bearer })).text, [ADVOCATE])).toEqual([ADVOCATE]);

      // The merchant hears of it, naming nobody; the notification address gets a confirmation.
      const deleted = await eventually(async () => {
        const body = hook.bodies.find((b) => b.type === 'user_data.deleted');
        expect(body).toBeDefined();
        return body!;
      }, 10_000);
      expect(deleted.data).toMatchObject({ user_data_deletion_id: jobId, email_addresses_count: 1, customer_ids: [customer.id] });
      const outbox = (await service.get(`/admin/merchants/${m.id}/outbox?recipient=dpo@erasure-shop.example`, service.admin)).body.results;
      expect(outbox).toEqual([
        expect.objectContaining({ kind: 'user_data_deletion', user_data_deletion_id: jobId, subject: expect.stringContaining(String(jobId)) }),
      ]);
      expect(found(JSON.stringify(outbox), ERASED)).toEqual([]);

      // The opt-out holds: a share to the erased address is not mailed to it.
      const sharer = (await service.post('/v2/customers', { account_id: 'bob-1', email_address: 'bob@example.com' }, a)).body.customer;
      const later = (
        await service.post(
          '/v2/shares',
          { widget_id: widget.id, customer_id: sharer.id, reward_email_address: 'bob@example.com', email_recipients: [ADVOCATE] },
          a,
        )
      ).body.share;
      await eventually(async () => {
        const mail = (await service!.get(`/admin/merchants/${m.id}/outbox?limit=100`, service!.admin)).body.results;
        expect(mail.filter((x: { share_id: number; status: string }) => x.share_id === later.id && x.status !== 'suppressed')).toEqual([]);
      });

      // Erasing again is fine: nothing more to destroy.
      const again = await service.post('/v2/user_data/delete', { email_addresses: [ADVOCATE.toUpperCase()] }, a);
      expect(again.status).toBe(202);
      await eventually(async () =>
        expect((await service!.get(`/v2/user_data/delete/${again.body.user_data_deletion.id}`, a)).body.user_data_deletion.status).toBe('completed'),
      );

      await service.stop(true);
      service = undefined;

      // Not one byte under DATA_DIR still says it (WAL and index files included).
      if (!E2E_EVENTSTORE_URL) expect(filesContaining(dataDir, ERASED)).toEqual([]);

      // Not after a restart (the read models rebuilt from the log at start-up)…
      service = await Service.start({ dataDir, env: ENV });
      expect(found(await everyAnswer(service, m, ids), ERASED)).toEqual([]);
      await service.stop(true);
      service = undefined;

      // …nor after `projections:rebuild` (the same rebuild, into a fresh store).
      {
        // The service's own storage: the same log, and the same key store (MongoDB's when the e2e read models are there).
        const config = {
          ...loadConfig({}),
          dataDir,
          eventStoreUrl: E2E_EVENTSTORE_URL,
          mongoUrl: E2E_MONGO_URL,
          ...(E2E_MONGO_URL ? { mongoDatabase: e2eDatabase(dataDir) } : {}),
          ...(E2E_EVENTSTORE_URL ? { eventStoreNamespace: `${e2eDatabase(dataDir).replace(/_/g, '-')}-` } : {}),
        };
        const events = await createServiceEventStore(config, systemClock);
        const store = new MemoryReadStore();
        try {
          const projections = serviceProjectionsFor(events);
          await rebuildReadModels(events, store, projections);
          const ours = Object.values(await dumpReadModels(store, projections)).flatMap((docs) => docs.filter((doc) => doc.merchant_id === m.id));
          expect(ours.length).toBeGreaterThan(10);
          expect(found(JSON.stringify(ours), ERASED)).toEqual([]);
        } finally {
          await events.close();
        }
      }
    } finally {
      await service?.stop(true);
      await hook.close();
    }
  });
});

describe('personal data erasure: bad input, isolation, throttling, concurrency', () => {
  const service = serviceForSuite({ env: { AUTH_FAILURES_PER_MINUTE: '3' } });

  it('refuses bad requests with a 4xx naming each bad element, and records no job', async () => {
    const m = await createMerchant(service(), 'Validation');
    const a = { auth: m.bearer };
    const cases: [unknown, string][] = [
      [{}, 'email_addresses'],
      [{ email_addresses: [] }, 'email_addresses'],
      [{ email_addresses: 'ann@example.com' }, 'email_addresses'],
      [{ email_addresses: ['ann@example.com', 'not an address'] }, 'email_addresses.1'],
      [{ email_addresses: ['ann@example.com', 7] }, 'email_addresses.1'],
      [{ email_addresses: Array.from({ length: 1001 }, (_, i) => `p${i}@example.com`) }, 'email_addresses'],
      [{ email_addresses: ['ann@example.com'], notification_email: 'nope' }, 'notification_email'],
      [{ email_addresses: ['ann@example.com'], customer_ids: [1, -2] }, 'customer_ids.1'],
      [{ email_addresses: ['ann@example.com'], customer_ids: ['12'] }, 'customer_ids.0'],
      [{ email_addresses: ['ann@example.com'], account_ids: ['ok', ''] }, 'account_ids.1'],
      [{ email_addresses: ['ann@example.com'], colour: 'red' }, 'colour'],
    ];
    for (const [body, property] of cases) {
      for (const route of ['/v2/user_data/delete', '/v1/user_data/delete']) {
        const reply = await service().post(route, body, route.startsWith('/v2') ? a : { auth: m.basic });
        expect([route, property, reply.status]).toEqual([route, property, 400]);
        expect(reply.body.errors.map((e: { property: string }) => e.property)).toContain(property);
      }
    }
    const malformed = await service().request('POST', '/v2/user_data/delete', {
      raw: '{"email_addresses": [',
      headers: { 'content-type': 'application/json' },
      auth: m.bearer,
    });
    expect(malformed.status).toBe(400);
    // Nothing was recorded: the audit trail shows no request.
    const audit = (await service().get('/v2/audit/events?type=UserDataDeletionRequested', a)).body.results;
    expect(audit).toEqual([]);
    expect((await service().get('/v2/user_data/delete/abc', a)).status).toBe(404);
    expect((await service().get('/v2/user_data/delete/999999999', a)).status).toBe(404);
  });

  it("keeps each merchant's jobs and data to itself", async () => {
    const m = await createMerchant(service(), 'Mine');
    const other = await createMerchant(service(), 'Theirs');
    await service().post('/v2/customers', { account_id: 'x', email_address: 'shared.person@example.com', first_name: 'Shared' }, { auth: other.bearer });
    const job = (await service().post('/v2/user_data/delete', { email_addresses: ['shared.person@example.com'] }, { auth: m.bearer })).body.user_data_deletion;
    await eventually(async () =>
      expect((await service().get(`/v2/user_data/delete/${job.id}`, { auth: m.bearer })).body.user_data_deletion.status).toBe('completed'),
    );
    expect((await service().get(`/v2/user_data/delete/${job.id}`, { auth: other.bearer })).status).toBe(404);
    expect((await service().get(`/v1/user_data/delete/${job.id}`, { auth: other.basic })).status).toBe(404);
    const theirs = (await service().get('/v2/customers', { auth: other.bearer })).body.results;
    expect(theirs).toEqual([expect.objectContaining({ email_address: 'shared.person@example.com', first_name: 'Shared' })]);
    expect((await service().post('/v2/user_data/delete', { email_addresses: ['a@b.example'] })).status).toBe(401);
  });

  it('counts bad credentials on the erasure routes like every other route', async () => {
    const m = await createMerchant(service(), 'Guessed');
    const wrong = `Basic ${Buffer.from(`${m.accessKey}:sk_guess`).toString('base64')}`;
    for (let i = 0; i < 3; i += 1)
      expect((await service().post('/v1/user_data/delete', { email_addresses: ['a@b.example'] }, { auth: wrong })).status).toBe(401);
    expect((await service().post('/v1/user_data/delete', { email_addresses: ['a@b.example'] }, { auth: wrong })).status).toBe(429);
  });

  it('leaves nothing half-erased when a purchase for the address arrives during the erasure', async () => {
    const m = await createMerchant(service(), 'Racing');
    const a = { auth: m.bearer };
    const address = 'racing.person@example.com';
    const purchases = Array.from({ length: 8 }, (_, i) =>
      service().post(
        '/v2/purchases',
        { order_id: `race-${i}`, email_address: address, ip_address: '192.0.2.44', referrer: 'https://racing.example/?who=racing.person' },
        a,
      ),
    );
    const job = service().post('/v2/user_data/delete', { email_addresses: [address] }, a);
    const [jobReply, ...replies] = await Promise.all([job, ...purchases]);
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201));
    const id = jobReply.body.user_data_deletion.id;
    await eventually(async () => expect((await service().get(`/v2/user_data/delete/${id}`, a)).body.user_data_deletion.status).toBe('completed'));
    const docs = (await service().get('/v2/purchases?limit=100', a)).body.results as {
      email_address: string | null;
      ip_address: string | null;
      referrer: string | null;
    }[];
    expect(docs).toHaveLength(8);
    // Each purchase is wholly erased (recorded before) or wholly kept (recorded after, a new subject).
    for (const p of docs) expect([p.email_address, p.ip_address, p.referrer].filter((v) => v === null).length % 3).toBe(0);
  });
});
