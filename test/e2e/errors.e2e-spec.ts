/** Spec §7 on every route of this issue: the error codes and the `{"errors": [...]}` body. */
import { Service, TestMerchant, createMerchant, eventually } from '../support/service.js';

describe('errors (spec §7)', () => {
  let service: Service;
  let m: TestMerchant;
  beforeAll(async () => {
    service = await Service.start();
    m = await createMerchant(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  const expectErrorBody = (r: { body: { errors?: unknown }; headers: Headers }) => {
    expect(Array.isArray(r.body?.errors)).toBe(true);
    expect((r.body.errors as unknown[]).length).toBeGreaterThan(0);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  };

  const jsonRoutes: [string, () => string, () => string][] = [
    ['POST', () => '/v2/customers', () => m.bearer],
    ['POST', () => '/v2/tokens/merchant', () => ''],
    ['POST', () => '/v2/tokens/customer', () => m.bearer],
    ['DELETE', () => '/v2/tokens/merchant', () => m.bearer],
    ['POST', () => '/admin/merchants', () => service.admin.auth],
    ['PATCH', () => `/admin/merchants/${m.id}`, () => service.admin.auth],
    ['POST', () => `/admin/merchants/${m.id}/widgets`, () => service.admin.auth],
  ];

  it.each(jsonRoutes)('%s: invalid JSON, non-object bodies, wrong media type and oversize bodies are 4xx', async (method, pathOf, auth) => {
    const path = pathOf();
    const headers = { 'content-type': 'application/json' };
    const cases: [string | Buffer, Record<string, string>, number][] = [
      ['{"account_id":', headers, 400],
      ['[1,2]', headers, 400],
      ['"text"', headers, 400],
      ['null', headers, 400],
      ['{"__proto__":{"x":1}}', headers, 400],
      ['{"constructor":{"prototype":{"x":1}}}', headers, 400],
      ['account_id=1', { 'content-type': 'application/x-www-form-urlencoded' }, 415],
      ['hello', { 'content-type': 'text/plain' }, 415],
      [Buffer.alloc(1024 * 1024 + 1, 32), headers, 413],
      // Not UTF-8: a byte that never occurs in it, a surrogate encoded as UTF-8, an overlong form.
      [Buffer.from([...Buffer.from('{"account_id":"u-'), 0xff, ...Buffer.from('"}')]), headers, 400],
      [Buffer.from([...Buffer.from('{"account_id":"u-'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]), headers, 400],
      [Buffer.from([...Buffer.from('{"account_id":"u-'), 0xc0, 0xaf, ...Buffer.from('"}')]), headers, 400],
      ['{"account_id":"Jos\u00e9"}', { 'content-type': 'application/json; charset=latin1' }, 415],
    ];
    for (const [raw, h, status] of cases) {
      const r = await service.request(method, path, { raw, headers: h, auth: auth() || undefined });
      expect({ path, raw: String(raw).slice(0, 40), status: r.status }).toEqual({ path, raw: String(raw).slice(0, 40), status });
      expectErrorBody(r);
    }
  });

  it('says why valid JSON with a key that would set a prototype is refused, and that invalid JSON is invalid', async () => {
    const post = (raw: string) => service.request('POST', '/v2/customers', { raw, headers: { 'content-type': 'application/json' }, auth: m.bearer });
    for (const raw of ['{"__proto__":{"x":1}}', '{"account_id":"p","constructor":{"prototype":{"x":1}}}']) {
      const r = await post(raw);
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([expect.stringContaining('"__proto__"')]);
    }
    const broken = await post('{"account_id":');
    expect(broken.status).toBe(400);
    expect(broken.body.errors).toEqual([expect.stringMatching(/not valid JSON/)]);
  });

  it('takes JSON in UTF-8, with or without the charset said, and keeps ids that differ only in bytes apart', async () => {
    const post = (raw: Buffer, contentType = 'application/json') =>
      service.request('POST', '/v2/customers', { raw, headers: { 'content-type': contentType }, auth: m.bearer });
    const jose = await post(Buffer.from('{"account_id":"utf8-jos\u00e9","first_name":"Jos\u00e9"}', 'utf8'), 'application/json; charset=UTF-8');
    expect(jose.status).toBe(201);
    expect(jose.body.customer.first_name).toBe('Jos\u00e9');
    // 0xFF and 0xFE used to decode to the same U+FFFD: the second request updated the first one's customer.
    const ff = await post(Buffer.from([...Buffer.from('{"account_id":"bytes-'), 0xff, ...Buffer.from('"}')]));
    const fe = await post(Buffer.from([...Buffer.from('{"account_id":"bytes-'), 0xfe, ...Buffer.from('"}')]));
    expect([ff.status, fe.status]).toEqual([400, 400]);
    expect(
      (await service.get('/v2/customers?limit=100', { auth: m.bearer })).body.results.filter((c: { account_id: string }) => c.account_id.startsWith('bytes-')),
    ).toEqual([]);
  });

  it('an empty body sent as application/json is no body on DELETE, GET and HEAD; POST, PUT and PATCH still refuse it', async () => {
    // What client wrappers that always send the header send (curl -X DELETE -H 'Content-Type: application/json').
    // (fetch sends no body at all with GET and HEAD, not even an empty one.)
    const empty = (method: string, path: string, auth: string) =>
      service.request(method, path, { raw: method === 'GET' || method === 'HEAD' ? undefined : '', headers: { 'content-type': 'application/json' }, auth });
    const job = (await service.post('/v2/email_opt_out_jobs', { email_addresses: ['empty-1@example.com', 'empty-2@example.com'] }, { auth: m.bearer })).body
      .email_opt_out_job;
    await eventually(async () =>
      expect((await service.get(`/v2/email_opt_out_jobs/${job.id}`, { auth: m.bearer })).body.email_opt_out_job.status).toBe('completed'),
    );
    const v1 = await empty('DELETE', '/v1/email_opt_outs/empty-1@example.com', m.basic);
    expect([v1.status, v1.body]).toEqual([200, { success: true }]);
    const v2 = await empty('DELETE', '/v2/email_opt_outs/empty-2@example.com', m.bearer);
    expect([v2.status, v2.body]).toEqual([200, { success: true }]);
    expect((await service.get('/v2/email_opt_outs', { auth: m.bearer })).body.results).toEqual([]);
    expect((await empty('GET', '/v2/widgets', m.bearer)).status).toBe(200);
    expect((await empty('HEAD', '/v2/widgets', m.bearer)).status).toBe(200);
    // A DELETE whose route takes a body still needs one.
    const revoke = await empty('DELETE', '/v2/tokens/merchant', m.bearer);
    expect(revoke.status).toBe(400);
    expectErrorBody(revoke);
    expect((await service.get('/v2/widgets', { auth: m.bearer })).status).toBe(200);
    for (const [method, path, auth] of [
      ['POST', '/v2/customers', m.bearer],
      ['PATCH', `/admin/merchants/${m.id}`, service.admin.auth],
      ['PUT', `/admin/merchants/${m.id}/custom_headers`, service.admin.auth],
    ]) {
      const r = await empty(method, path, auth);
      expect({ method, status: r.status }).toEqual({ method, status: 400 });
      expectErrorBody(r);
    }
  });

  it('404 for unknown routes and ids, 405 with Allow for a known path and the wrong method', async () => {
    const unknown = await service.get('/v2/nothing-here', { auth: m.bearer });
    expect(unknown.status).toBe(404);
    expectErrorBody(unknown);
    const method = await service.request('PUT', '/v2/widgets', { auth: m.bearer });
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toContain('GET');
    expectErrorBody(method);
    const del = await service.request('DELETE', '/v1/customers/5', { auth: m.basic });
    expect(del.status).toBe(405);
    // A trailing slash is another path: unknown, whatever the method (it was a 405 naming the
    // method asked for as the one not allowed, with only the other one in Allow).
    for (const method of ['GET', 'HEAD', 'POST', 'DELETE']) {
      // An empty last segment is no id either (`/v2/customers/` was a 405 for POST, 404 for GET).
      for (const path of ['/v1/campaigns/', '/v1/customers/5/', '/v2/customers/5/', '/v2/customers/', '/v2/email_opt_outs/']) {
        const r = await service.request(method, path, { auth: path.startsWith('/v1') ? m.basic : m.bearer });
        expect({ method, path, status: r.status }).toEqual({ method, path, status: 404 });
      }
    }
    for (const path of ['/v2/customers/0', '/v2/customers/-3', '/v2/customers/1e3', '/v2/widgets/99999999999999999999']) {
      const r = await service.get(path, { auth: m.bearer });
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
      expectErrorBody(r);
    }
  });

  it('406 when Accept excludes JSON; JSON, wildcards and no Accept are fine', async () => {
    const refused = await service.get('/v2/widgets', { auth: m.bearer, headers: { accept: 'text/html' } });
    expect(refused.status).toBe(406);
    expectErrorBody(refused);
    expect((await service.get('/v1/campaigns', { auth: m.basic, headers: { accept: 'application/xml' } })).status).toBe(406);
    expect((await service.get('/%761/campaigns', { auth: m.basic, headers: { accept: 'text/html' } })).status).toBe(406);
    // An encoded letter is the letter (RFC 3986 §6.2.2.2): the route answers as it does unencoded.
    expect((await service.get('/%761/c%61mpaigns', { auth: m.basic })).status).toBe(200);
    for (const accept of [
      'application/json',
      '*/*',
      'application/*',
      'text/html, application/json;q=0.5',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8;q=0.9',
      'application/json; version=1',
    ]) {
      expect((await service.get('/v2/widgets', { auth: m.bearer, headers: { accept } })).status).toBe(200);
    }
  });

  it('401 on every authenticated route without credentials', async () => {
    for (const path of [
      '/v1/campaigns',
      '/v1/customers',
      '/v1/customers/1',
      '/v1/customer_info?email=a',
      '/v2/widgets',
      '/v2/widgets/1',
      '/v2/customers',
      '/v2/customers/1',
    ]) {
      const r = await service.get(path);
      expect({ path, status: r.status }).toEqual({ path, status: 401 });
      expectErrorBody(r);
    }
    expect((await service.post('/v2/customers', { account_id: 'x' })).status).toBe(401);
    expect((await service.post('/v2/tokens/customer', { customer_id: 1 })).status).toBe(401);
  });

  it('a query string on an API route that takes none is a 400; trackable links keep theirs', async () => {
    const before = await service.get('/v2/customers?limit=100', { auth: m.bearer });
    // `dry_run` does not exist: the customer must not be written as if it did.
    const dry = await service.post('/v2/customers?dry_run=true', { account_id: 'query-dry-run' }, { auth: m.bearer });
    expect(dry.status).toBe(400);
    expect(dry.body.errors).toEqual([expect.objectContaining({ property: 'dry_run', code: 'unrecognized_property' })]);
    expect((await service.get('/v2/customers?limit=100', { auth: m.bearer })).body).toEqual(before.body);
    const customer = (await service.post('/v2/customers', { account_id: 'query-item' }, { auth: m.bearer })).body.customer;
    expect((await service.get(`/v2/customers/${customer.id}?x=1`, { auth: m.bearer })).status).toBe(400);
    expect((await service.get(`/v2/customers/${customer.id}`, { auth: m.bearer })).status).toBe(200);
    expect((await service.get(`/admin/merchants/${m.id}?verbose=1`, service.admin)).status).toBe(400);
    // The same path with its letters percent-encoded is the same route, and refused the same way.
    const encoded = await service.post('/%762/customers?dry_run=true', { account_id: 'query-dry-run' }, { auth: m.bearer });
    expect(encoded.status).toBe(400);
    expectErrorBody(encoded);
    expect((await service.get(`/%762/%63ustomers/${customer.id}?x=1`, { auth: m.bearer })).status).toBe(400);
    expect((await service.get('/v2/customers?limit=100', { auth: m.bearer })).body.results.map((c: { account_id: string }) => c.account_id)).not.toContain(
      'query-dry-run',
    );
    // Lists take theirs.
    expect((await service.get('/v2/customers?account_id=query-item', { auth: m.bearer })).body.results).toHaveLength(1);
    // A trackable link with the utm_* parameters a newsletter tool appends still redirects.
    const widget = (await service.post(`/admin/merchants/${m.id}/widgets`, { name: 'Q', destination_url: 'https://shop.example/' }, service.admin)).body.widget;
    const link = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: 'query-link@example.com' }, { auth: m.bearer })).body
      .referral_link;
    const visit = await fetch(`${service.url}/l/${link.code}?utm_source=newsletter`, { redirect: 'manual' });
    expect(visit.status).toBe(302);
  });

  it('refused requests change nothing', async () => {
    const before = await service.get('/v2/customers', { auth: m.bearer });
    await service.post('/v2/customers', { account_id: 'x', extra: true }, { auth: m.bearer });
    await service.post('/v2/customers', { account_id: '' }, { auth: m.bearer });
    await service.request('POST', '/v2/customers', { raw: '{"account_id":"y"', headers: { 'content-type': 'application/json' }, auth: m.bearer });
    const after = await service.get('/v2/customers', { auth: m.bearer });
    expect(after.body).toEqual(before.body);
  });
});
