/**
 * Admin configuration of webhooks (endpoints, client API, custom headers) and the delivery log's
 * input checks, on a service with WEBHOOK_ALLOW_PRIVATE_URLS off (the default): private,
 * loopback and link-local URLs are refused when configured and when called.
 */
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ClientApiCaller, IntegrationSettingsQueries } from '../../src/integrations/index.js';
import { Service, TestMerchant, createMerchant } from '../support/service.js';

/** Public addresses as literals, so no test depends on DNS. */
const PUBLIC = 'https://93.184.216.34/hooks';
const PUBLIC_2 = 'http://93.184.216.35:8080/other';

const properties = (body: { errors: ({ property: string; code: string } | string)[] }) =>
  body.errors.map((e) => (typeof e === 'string' ? e : `${e.property}:${e.code}`));

describe('webhooks admin API', () => {
  let service: Service;
  let m: TestMerchant;
  const path = (rest: string) => `/admin/merchants/${m.id}/${rest}`;

  beforeAll(async () => {
    service = await Service.start();
    m = await createMerchant(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  it('creates, lists, reads, changes and deletes webhook endpoints', async () => {
    const created = await service.post(path('webhook_endpoints'), { url: PUBLIC }, service.admin);
    expect(created.status).toBe(201);
    const endpoint = created.body.webhook_endpoint;
    expect(endpoint).toEqual({
      id: expect.any(Number),
      url: PUBLIC,
      events: ['share.created', 'email.captured', 'email.opted_out', 'conversion.created', 'reward.approved', 'reward.rejected', 'user_data.deleted'],
      all_events: true,
      created_at: expect.any(String),
      last_modified_at: expect.any(String),
    });
    const second = await service.post(path('webhook_endpoints'), { url: PUBLIC_2, events: ['reward.rejected', 'conversion.created'] }, service.admin);
    expect(second.status).toBe(201);
    expect(second.body.webhook_endpoint).toMatchObject({ events: ['conversion.created', 'reward.rejected'], all_events: false });

    const list = await service.get(path('webhook_endpoints'), service.admin);
    expect(list.body.webhook_endpoints.map((e: { id: number }) => e.id)).toEqual([endpoint.id, second.body.webhook_endpoint.id]);

    const changed = await service.patch(path(`webhook_endpoints/${endpoint.id}`), { events: ['share.created'] }, service.admin);
    expect(changed.status).toBe(200);
    expect(changed.body.webhook_endpoint).toMatchObject({ id: endpoint.id, url: PUBLIC, events: ['share.created'], all_events: false });
    const back = await service.patch(path(`webhook_endpoints/${endpoint.id}`), { events: null, url: PUBLIC_2 }, service.admin);
    expect(back.body.webhook_endpoint).toMatchObject({ url: PUBLIC_2, all_events: true });
    expect((await service.get(path(`webhook_endpoints/${endpoint.id}`), service.admin)).body.webhook_endpoint.url).toBe(PUBLIC_2);

    const deleted = await service.delete(path(`webhook_endpoints/${endpoint.id}`), undefined, service.admin);
    expect(deleted.status).toBe(204);
    expect((await service.get(path(`webhook_endpoints/${endpoint.id}`), service.admin)).status).toBe(404);
    expect((await service.delete(path(`webhook_endpoints/${endpoint.id}`), undefined, service.admin)).status).toBe(404);
    expect((await service.patch(path(`webhook_endpoints/${endpoint.id}`), { events: null }, service.admin)).status).toBe(404);
    expect((await service.get(path('webhook_endpoints'), service.admin)).body.webhook_endpoints).toHaveLength(1);

    const other = await createMerchant(service, 'Other');
    const foreign = `/admin/merchants/${other.id}/webhook_endpoints/${second.body.webhook_endpoint.id}`;
    expect((await service.get(foreign, service.admin)).status).toBe(404);
    expect((await service.patch(foreign, { events: null }, service.admin)).status).toBe(404);
  });

  it('validates endpoint bodies with structured reports', async () => {
    const cases: [unknown, string[]][] = [
      [{}, ['url:missing']],
      [{ url: 'ftp://shop.example/x' }, ['url:invalid']],
      [{ url: 'not a url' }, ['url:invalid']],
      [{ url: 'https://user:pw@shop.example/x' }, ['url:invalid']],
      [{ url: 42 }, ['url:wrong_type']],
      [{ url: PUBLIC, events: ['share.created', 'share.deleted'] }, ['events.1:invalid']],
      [{ url: PUBLIC, events: [] }, ['events:invalid']],
      [{ url: PUBLIC, events: ['share.created', 'share.created'] }, ['events:invalid']],
      [{ url: PUBLIC, events: 'share.created' }, ['events:wrong_type']],
      [{ url: PUBLIC, events: ['share.created', 5] }, ['events.1:wrong_type']],
      [{ url: PUBLIC, events: [5, 'share.deleted'] }, ['events.1:invalid', 'events.0:wrong_type']],
      [{ url: PUBLIC, secret: 'x' }, ['secret:unrecognized_property']],
    ];
    for (const [body, expected] of cases) {
      const r = await service.post(path('webhook_endpoints'), body, service.admin);
      expect({ body, status: r.status, errors: properties(r.body) }).toEqual({ body, status: 400, errors: expected });
    }
    // The refusal says how to get past it on a developer's machine.
    const loopback = await service.post(path('webhook_endpoints'), { url: 'http://127.0.0.1:4000/hooks' }, service.admin);
    expect(loopback.body.errors[0].message).toMatch(/127\.0\.0\.1, a private, loopback or link-local address.*WEBHOOK_ALLOW_PRIVATE_URLS=true/);
    const created = (await service.post(path('webhook_endpoints'), { url: PUBLIC }, service.admin)).body.webhook_endpoint;
    const bad = await service.patch(path(`webhook_endpoints/${created.id}`), { url: null }, service.admin);
    expect(bad.status).toBe(400);
    expect((await service.patch(path(`webhook_endpoints/${created.id}`), { events: ['nope'] }, service.admin)).status).toBe(400);
  });

  it('refuses URLs on private, loopback and link-local addresses (WEBHOOK_ALLOW_PRIVATE_URLS off)', async () => {
    const refused = [
      'http://127.0.0.1:8080/hooks',
      'http://localhost/hooks',
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/hooks',
      'http://192.168.0.10/hooks',
      'http://[::1]/hooks',
      'http://[::ffff:127.0.0.1]/hooks',
      'http://[fe80::1]/hooks',
      'http://0.0.0.0/hooks',
    ];
    for (const url of refused) {
      const r = await service.post(path('webhook_endpoints'), { url }, service.admin);
      expect({ url, status: r.status, errors: properties(r.body) }).toEqual({ url, status: 400, errors: ['url:invalid'] });
    }
    // The refusal says how to get past it on a developer's machine.
    const loopback = await service.post(path('webhook_endpoints'), { url: 'http://127.0.0.1:4000/hooks' }, service.admin);
    expect(loopback.body.errors[0].message).toMatch(/127\.0\.0\.1, a private, loopback or link-local address.*WEBHOOK_ALLOW_PRIVATE_URLS=true/);
    const created = (await service.post(path('webhook_endpoints'), { url: PUBLIC }, service.admin)).body.webhook_endpoint;
    const patched = await service.patch(path(`webhook_endpoints/${created.id}`), { url: 'http://127.0.0.1/x' }, service.admin);
    expect(patched.status).toBe(400);
    const clientApi = await service.put(
      path('client_api'),
      { share_instructions_url: 'http://localhost/share', reward_validation_url: 'http://10.0.0.1/r' },
      service.admin,
    );
    expect(clientApi.status).toBe(400);
    expect(properties(clientApi.body)).toEqual(['share_instructions_url:invalid', 'reward_validation_url:invalid']);
    // A widget's own reward validation URL (it overrides the merchant's) is checked the same way.
    const widgetBody = { name: 'Validated', reward_type: 'fixed_cash', reward_amount: 5, destination_url: 'https://shop.example/' };
    const widget = await service.post(path('widgets'), { ...widgetBody, reward_validation_url: 'http://localhost:9/x' }, service.admin);
    expect({ status: widget.status, errors: properties(widget.body) }).toEqual({ status: 400, errors: ['reward_validation_url:invalid'] });
    const made = (await service.post(path('widgets'), widgetBody, service.admin)).body.widget;
    const changed = await service.patch(path(`widgets/${made.id}`), { reward_validation_url: 'http://127.0.0.1:9/x' }, service.admin);
    expect({ status: changed.status, errors: properties(changed.body) }).toEqual({ status: 400, errors: ['reward_validation_url:invalid'] });
    expect((await service.patch(path(`widgets/${made.id}`), { reward_validation_url: PUBLIC }, service.admin)).status).toBe(200);
  });

  it('refuses private addresses at call time too, before any byte is sent', async () => {
    let hits = 0;
    const server: Server = createServer((_, res) => {
      hits += 1;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const caller = service.app.get(ClientApiCaller);
      const literal = await caller.call(m.id, 'share_instructions', `http://127.0.0.1:${port}/x`, { type: 'share_instructions' });
      expect(literal).toEqual({ ok: false, status: null, error: expect.stringMatching(/^refused: 127\.0\.0\.1 is a private/) });
      // A name is checked in the connection's own lookup, so what is checked is what is connected to.
      const named = await caller.call(m.id, 'reward_validation', `http://localhost:${port}/x`, { type: 'reward_validation' });
      expect(named).toEqual({ ok: false, status: null, error: expect.stringMatching(/^refused: localhost resolves to .*(127\.0\.0\.1|::1)/) });
      expect(hits).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('sets and reads the client API URLs; either may be null', async () => {
    expect((await service.get(path('client_api'), service.admin)).body).toEqual({
      client_api: { share_instructions_url: null, reward_validation_url: null, last_modified_at: null },
    });
    const put = await service.put(path('client_api'), { share_instructions_url: PUBLIC, reward_validation_url: null }, service.admin);
    expect(put.status).toBe(200);
    expect(put.body.client_api).toEqual({ share_instructions_url: PUBLIC, reward_validation_url: null, last_modified_at: expect.any(String) });
    expect((await service.get(path('client_api'), service.admin)).body).toEqual(put.body);
    expect(await service.app.get(IntegrationSettingsQueries).clientApi(m.id)).toEqual({ shareInstructionsUrl: PUBLIC, rewardValidationUrl: null });

    const cases: [unknown, string[]][] = [
      [{ share_instructions_url: PUBLIC }, ['reward_validation_url:missing']],
      [{ share_instructions_url: 'gopher://x', reward_validation_url: null }, ['share_instructions_url:invalid']],
      [{ share_instructions_url: null, reward_validation_url: 5 }, ['reward_validation_url:wrong_type']],
      [{ share_instructions_url: null, reward_validation_url: null, extra: 1 }, ['extra:unrecognized_property']],
    ];
    for (const [body, expected] of cases) {
      const r = await service.put(path('client_api'), body, service.admin);
      expect({ body, status: r.status, errors: properties(r.body) }).toEqual({ body, status: 400, errors: expected });
    }
  });

  it('sets and reads custom headers, refusing bad names and values', async () => {
    expect((await service.get(path('custom_headers'), service.admin)).body).toEqual({
      custom_headers: { headers: {}, replace_signature: false, last_modified_at: null },
    });
    const put = await service.put(
      path('custom_headers'),
      { headers: { 'X-Vendor': 'acme', Authorization: 'Bearer t0k3n' }, replace_signature: true },
      service.admin,
    );
    expect(put.status).toBe(200);
    expect(put.body.custom_headers).toEqual({
      headers: { 'X-Vendor': 'acme', Authorization: 'Bearer t0k3n' },
      replace_signature: true,
      last_modified_at: expect.any(String),
    });
    expect((await service.get(path('custom_headers'), service.admin)).body).toEqual(put.body);

    const cases: [unknown, string[]][] = [
      [{ headers: { 'Bad Name': 'x' } }, ['headers.Bad Name:invalid']],
      [{ headers: { 'X-Split': 'a\r\nSet-Cookie: evil=1' } }, ['headers.X-Split:invalid']],
      [{ headers: { 'X-Split': 'a\nb' } }, ['headers.X-Split:invalid']],
      [{ headers: { 'Content-Type': 'text/plain' } }, ['headers.Content-Type:invalid']],
      [{ headers: { 'X-SERVICE-SIGNATURE': 'forged' } }, ['headers.X-SERVICE-SIGNATURE:invalid']],
      [{ headers: { 'X-Num': 5 } }, ['headers.X-Num:wrong_type']],
      [{ headers: {}, replace_signature: true }, ['replace_signature:invalid']],
      [{ headers: ['X-A'] }, ['headers:wrong_type']],
      [{ replace_signature: false }, ['headers:missing']],
      [{ headers: {}, replace_signature: 'yes' }, ['replace_signature:wrong_type']],
    ];
    for (const [body, expected] of cases) {
      const r = await service.put(path('custom_headers'), body, service.admin);
      expect({ body, status: r.status, errors: properties(r.body) }).toEqual({ body, status: 400, errors: expected });
    }
    expect((await service.put(path('custom_headers'), { headers: {} }, service.admin)).body.custom_headers).toMatchObject({
      headers: {},
      replace_signature: false,
    });
  });

  it('checks the delivery log parameters', async () => {
    expect((await service.get(path('webhook_deliveries'), service.admin)).body).toEqual({ next_page: null, results_count: 0, results: [] });
    for (const query of ['status=sent', 'kind=share.deleted', 'limit=0', 'limit=101', 'endpoint_id=abc', 'cursor=zz!', 'statuss=pending', 'from=2026-13-01']) {
      const r = await service.get(path(`webhook_deliveries?${query}`), service.admin);
      expect({ query, status: r.status, errors: Array.isArray(r.body.errors) }).toEqual({ query, status: 400, errors: true });
    }
    expect((await service.get(path('webhook_deliveries/123'), service.admin)).status).toBe(404);
    expect((await service.get(path('webhook_deliveries/abc'), service.admin)).status).toBe(404);
    expect((await service.post(path('webhook_deliveries/123/redeliver'), undefined, service.admin)).status).toBe(404);
  });

  it('answers 404 for an unknown merchant and 401 without the admin token', async () => {
    for (const [method, rest] of [
      ['GET', 'webhook_endpoints'],
      ['GET', 'client_api'],
      ['GET', 'custom_headers'],
      ['GET', 'webhook_deliveries'],
    ]) {
      expect((await service.request(method, `/admin/merchants/999999/${rest}`, service.admin)).status).toBe(404);
      const anonymous = await service.request(method, path(rest));
      expect(anonymous.status).toBe(401);
      expect(Array.isArray(anonymous.body.errors)).toBe(true);
    }
    expect((await service.post('/admin/merchants/999999/webhook_endpoints', { url: PUBLIC }, service.admin)).status).toBe(404);
    expect((await service.put('/admin/merchants/999999/client_api', { share_instructions_url: null, reward_validation_url: null }, service.admin)).status).toBe(
      404,
    );
  });
});
