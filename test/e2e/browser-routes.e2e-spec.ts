/**
 * The browser routes (docs/embedding.md): a page on an allowed origin, with the publishable key
 * alone, reads the merchant's offered widgets, is served a sticky variant and records an email
 * capture; CORS answers only that merchant's origins and only on these routes; server credentials
 * are refused here and the publishable key everywhere else; the routes are throttled per address.
 */
import { createMerchant, createWidget, RequestOptions, Service, TestMerchant, serviceForSuite } from '../support/service.js';

const SHOP = 'https://shop.example';
const OTHER_SHOP = 'https://other-shop.example';
const EVIL = 'https://evil.example';

describe('browser routes and publishable keys', () => {
  let service: Service;
  let a: TestMerchant & { pk: string };
  let b: TestMerchant & { pk: string };
  /** Merchant A's widgets: a 70/30 group, an email-capture widget, and hidden ones. */
  let springA: { id: number };
  let springB: { id: number };
  let capture: { id: number };
  let hidden: { id: number }[];
  let bWidget: { id: number };

  const withKey = async (m: TestMerchant): Promise<TestMerchant & { pk: string }> => {
    const shown = await service.get(`/admin/merchants/${m.id}`, service.admin);
    expect(shown.body.merchant.publishable_key).toMatch(/^pk_[A-Za-z0-9]{32}$/);
    return { ...m, pk: shown.body.merchant.publishable_key };
  };
  const page = (pk: string, origin = SHOP, more: RequestOptions = {}): RequestOptions => ({
    ...more,
    headers: { 'x-publishable-key': pk, origin, ...more.headers },
  });
  const corsOf = (headers: Headers) => ({
    allowOrigin: headers.get('access-control-allow-origin'),
    vary: headers.get('vary'),
  });

  beforeAll(async () => {
    service = await Service.start({
      env: { BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS: '100000', BROWSER_CAPTURES_PER_MINUTE_PER_ADDRESS: '100000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    });
    a = await withKey(await createMerchant(service, 'Shop A'));
    b = await withKey(await createMerchant(service, 'Shop B'));
    expect(
      (await service.patch(`/admin/merchants/${a.id}`, { allowed_origins: [SHOP, 'http://localhost:8080'] }, service.admin)).body.merchant.allowed_origins,
    ).toEqual([SHOP, 'http://localhost:8080']);
    expect((await service.patch(`/admin/merchants/${b.id}`, { allowed_origins: [OTHER_SHOP] }, service.admin)).status).toBe(200);
    springA = await createWidget(service, a, {
      name: 'Spring A',
      widget_group_id: 'spring',
      distribution: 70,
      published: true,
      reward_validation_url: 'http://127.0.0.1:9/validate-reward',
    });
    springB = await createWidget(service, a, { name: 'Spring B', widget_group_id: 'spring', distribution: 30, published: true });
    capture = await createWidget(service, a, { name: 'Newsletter', objective: 'email_capture', published: true, reward_type: null, reward_amount: null });
    hidden = [
      await createWidget(service, a, { name: 'Unpublished', widget_group_id: 'spring', distribution: 50 }),
      await createWidget(service, a, { name: 'Archived', published: true, archived: true }),
      await createWidget(service, a, { name: 'Inactive capture', objective: 'email_capture', published: true, active: false }),
    ];
    bWidget = await createWidget(service, b, { name: 'B only', published: true });
  }, 30_000);
  afterAll(async () => {
    await service.stop();
  });

  it('shows the publishable key at creation and in the admin view, and rotates it: the old key stops working at once', async () => {
    const created = await service.post('/admin/merchants', { name: 'Rotating shop' }, service.admin);
    const { id, publishable_key: first } = created.body.merchant;
    expect(first).toMatch(/^pk_/);
    await service.patch(`/admin/merchants/${id}`, { allowed_origins: [SHOP] }, service.admin);
    expect((await service.get('/browser/v1/widgets', page(first))).status).toBe(200);
    const rotated = await service.post(`/admin/merchants/${id}/publishable_key`, undefined, service.admin);
    expect(rotated.status).toBe(200);
    const second = rotated.body.merchant.publishable_key;
    expect(second).toMatch(/^pk_/);
    expect(second).not.toBe(first);
    expect(rotated.body.merchant).not.toHaveProperty('secret_key');
    expect((await service.get(`/admin/merchants/${id}`, service.admin)).body.merchant.publishable_key).toBe(second);
    const old = await service.get('/browser/v1/widgets', page(first));
    expect([old.status, old.body.errors[0]]).toEqual([401, expect.stringMatching(/unknown publishable key/)]);
    expect((await service.get('/browser/v1/widgets', page(second))).status).toBe(200);
    expect((await service.post('/admin/merchants/999999999/publishable_key', undefined, service.admin)).status).toBe(404);
  });

  it('answers a preflight from an allowed origin with the CORS headers, and the request itself with the origin echoed', async () => {
    const preflight = await service.request('OPTIONS', '/browser/v1/widgets', {
      headers: { origin: SHOP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-publishable-key' },
    });
    expect(preflight.status).toBe(204);
    expect({
      ...corsOf(preflight.headers),
      methods: preflight.headers.get('access-control-allow-methods'),
      headers: preflight.headers.get('access-control-allow-headers'),
      maxAge: preflight.headers.get('access-control-max-age'),
      credentials: preflight.headers.get('access-control-allow-credentials'),
    }).toEqual({
      allowOrigin: SHOP,
      vary: 'Origin',
      methods: 'GET, POST',
      headers: 'Content-Type, X-Publishable-Key, X-Customer-Token',
      maxAge: '600',
      credentials: null,
    });
    const post = await service.request('OPTIONS', '/browser/v1/email_captures', {
      headers: { origin: 'http://localhost:8080', 'access-control-request-method': 'POST' },
    });
    expect([post.status, post.headers.get('access-control-allow-origin')]).toEqual([204, 'http://localhost:8080']);
    // A preflight goes to the request's own URL, query string included.
    const variant = await service.request('OPTIONS', `/browser/v1/widgets/${springA.id}/variant?visitor=v-9`, {
      headers: { origin: SHOP, 'access-control-request-method': 'GET' },
    });
    expect([variant.status, variant.headers.get('access-control-allow-origin')]).toEqual([204, SHOP]);

    const actual = await service.get('/browser/v1/widgets', page(a.pk));
    expect(actual.status).toBe(200);
    expect(corsOf(actual.headers)).toEqual({ allowOrigin: SHOP, vary: 'Origin' });
    expect(actual.headers.get('access-control-expose-headers')).toBe('Retry-After, X-Request-Id');
  });

  it('gives an origin no merchant allows no CORS headers, preflight or request, and refuses the request with 403', async () => {
    const preflight = await service.request('OPTIONS', '/browser/v1/widgets', { headers: { origin: EVIL, 'access-control-request-method': 'GET' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin'), preflight.body.errors]).toEqual([
      403,
      null,
      [expect.stringMatching(/not allowed/)],
    ]);
    const actual = await service.get('/browser/v1/widgets', page(a.pk, EVIL));
    expect([actual.status, actual.headers.get('access-control-allow-origin'), actual.body.errors]).toEqual([
      403,
      null,
      [expect.stringMatching(/not among the merchant's allowed origins/)],
    ]);
    // Another merchant's origin: allowed by B, not by A.
    const crossed = await service.get('/browser/v1/widgets', page(a.pk, OTHER_SHOP));
    expect([crossed.status, crossed.headers.get('access-control-allow-origin')]).toEqual([403, null]);
    const noOrigin = await service.get('/browser/v1/widgets', { headers: { 'x-publishable-key': a.pk } });
    expect([noOrigin.status, noOrigin.body.errors]).toEqual([403, [expect.stringMatching(/no Origin header/)]]);
    const badPreflight = await service.request('OPTIONS', '/browser/v1/widgets', { headers: { origin: SHOP, 'access-control-request-method': 'DELETE' } });
    expect([badPreflight.status, badPreflight.headers.get('access-control-allow-origin')]).toEqual([403, null]);
  });

  it('refuses every origin for a merchant that allows none (the default)', async () => {
    const none = await withKey(await createMerchant(service, 'No origins'));
    expect((await service.get(`/admin/merchants/${none.id}`, service.admin)).body.merchant.allowed_origins).toEqual([]);
    for (const origin of [SHOP, OTHER_SHOP, EVIL]) {
      const reply = await service.get('/browser/v1/widgets', page(none.pk, origin));
      expect({ origin, status: reply.status, cors: reply.headers.get('access-control-allow-origin') }).toEqual({ origin, status: 403, cors: null });
    }
    // Allowed, then taken back: the preflight stops answering it once no merchant allows it.
    await service.patch(`/admin/merchants/${none.id}`, { allowed_origins: ['https://brief.example'] }, service.admin);
    const before = await service.request('OPTIONS', '/browser/v1/widgets', {
      headers: { origin: 'https://brief.example', 'access-control-request-method': 'GET' },
    });
    expect(before.status).toBe(204);
    await service.patch(`/admin/merchants/${none.id}`, { allowed_origins: [] }, service.admin);
    const after = await service.request('OPTIONS', '/browser/v1/widgets', {
      headers: { origin: 'https://brief.example', 'access-control-request-method': 'GET' },
    });
    expect([after.status, after.headers.get('access-control-allow-origin')]).toEqual([403, null]);
  });

  it('sends no CORS headers on the server routes, whatever the Origin, and answers no preflight there', async () => {
    const v2 = await service.get('/v2/widgets', { auth: a.bearer, headers: { origin: SHOP } });
    expect([v2.status, v2.headers.get('access-control-allow-origin')]).toEqual([200, null]);
    const v1 = await service.get('/v1/campaigns', { auth: a.basic, headers: { origin: SHOP } });
    expect([v1.status, v1.headers.get('access-control-allow-origin')]).toEqual([200, null]);
    const preflight = await service.request('OPTIONS', '/v2/widgets', { headers: { origin: SHOP, 'access-control-request-method': 'GET' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([405, null]);
  });

  it("lists only the merchant's own published, active, unarchived widgets, with nothing internal", async () => {
    const listed = (await service.get('/browser/v1/widgets', page(a.pk))).body.widgets as Record<string, unknown>[];
    expect(listed.map((w) => w.id).sort()).toEqual([springA.id, springB.id, capture.id].sort());
    for (const h of [...hidden, bWidget]) expect(listed.map((w) => w.id)).not.toContain(h.id);
    expect(listed.find((w) => w.id === springA.id)).toEqual({
      id: springA.id,
      name: 'Spring A',
      objective: 'referral',
      widget_group_id: 'spring',
      distribution: 70,
      reward_type: 'fixed_cash',
      reward_amount: 10,
      destination_url: 'https://shop.example/welcome',
    });
    expect(listed.find((w) => w.id === capture.id)).toMatchObject({ distribution: 100, reward_type: null });
    expect(JSON.stringify(listed)).not.toMatch(/validate|fraud|criteria|secret/);
    const ofB = (await service.get('/browser/v1/widgets', page(b.pk, OTHER_SHOP))).body.widgets as { id: number }[];
    expect(ofB.map((w) => w.id)).toEqual([bWidget.id]);
  });

  it("never serves another merchant's widget or a hidden one as a variant", async () => {
    for (const id of [bWidget.id, ...hidden.map((h) => h.id), 999_999_999]) {
      const reply = await service.get(`/browser/v1/widgets/${id}/variant?visitor=v1`, page(a.pk));
      expect({ id, status: reply.status, errors: reply.body.errors }).toEqual({ id, status: 404, errors: [expect.stringMatching(/not found/)] });
      expect(reply.headers.get('access-control-allow-origin')).toBe(SHOP);
    }
  });

  it('serves a group by distribution, the same variant to the same visitor every time', async () => {
    const served = new Map<number, number>();
    const first = new Map<string, number>();
    for (let i = 0; i < 1000; i += 1) {
      const visitor = `visitor-${i}`;
      const reply = await service.get(`/browser/v1/widgets/${i % 2 ? springA.id : springB.id}/variant?visitor=${visitor}`, page(a.pk));
      expect(reply.status).toBe(200);
      const id = reply.body.widget.id as number;
      first.set(visitor, id);
      served.set(id, (served.get(id) ?? 0) + 1);
    }
    expect([...served.keys()].sort()).toEqual([springA.id, springB.id].sort());
    // 70 % of 1,000: a binomial standard deviation is about 14.5; 600 to 800 is a bound of about 7 of them.
    expect(served.get(springA.id)).toBeGreaterThan(600);
    expect(served.get(springA.id)).toBeLessThan(800);
    for (const visitor of ['visitor-1', 'visitor-2', 'visitor-500', 'visitor-999']) {
      for (const via of [springA.id, springB.id]) {
        const again = await service.get(`/browser/v1/widgets/${via}/variant?visitor=${visitor}`, page(a.pk));
        expect({ visitor, id: again.body.widget.id }).toEqual({ visitor, id: first.get(visitor) });
      }
    }
  }, 60_000);

  it('records an email capture from a page with the widget it came from', async () => {
    const reply = await service.post(
      '/browser/v1/email_captures',
      { widget_id: capture.id, email_address: 'Visitor@Example.com', newsletter_opt_in: true },
      page(a.pk),
    );
    expect(reply.status).toBe(201);
    expect(reply.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(reply.body.email_capture).toEqual({
      id: expect.any(Number),
      widget_id: capture.id,
      email_address: 'Visitor@Example.com',
      newsletter_opt_in: true,
      created_at: expect.any(String),
    });
    const recorded = await service.get(`/v2/email_captures/${reply.body.email_capture.id}`, { auth: a.bearer });
    expect(recorded.status).toBe(200);
    expect(recorded.body.email_capture).toMatchObject({
      widget: expect.stringMatching(new RegExp(`/v2/widgets/${capture.id}$`)),
      email_address: 'Visitor@Example.com',
      ip_address: '127.0.0.1',
    });
    // Not on a widget that captures no email, a hidden one, or another merchant's: nothing recorded.
    const before = (await service.get('/v2/email_captures?limit=100', { auth: a.bearer })).body.results.length;
    for (const widget_id of [springA.id, hidden[2].id, bWidget.id]) {
      const refused = await service.post('/browser/v1/email_captures', { widget_id, email_address: 'x@example.com' }, page(a.pk));
      expect({ widget_id, status: refused.status }).toEqual({ widget_id, status: 404 });
    }
    expect((await service.get('/v2/email_captures?limit=100', { auth: a.bearer })).body.results.length).toBe(before);
  });

  it('refuses a secret key, an access key, a merchant token or any Authorization header, saying never to put one in a page', async () => {
    const attempts: RequestOptions[] = [
      { headers: { 'x-publishable-key': a.secretKey, origin: SHOP } },
      { headers: { 'x-publishable-key': a.accessKey, origin: SHOP } },
      { headers: { 'x-publishable-key': a.token, origin: SHOP } },
      { auth: a.bearer, headers: { origin: SHOP } },
      { auth: a.basic, headers: { origin: SHOP } },
      page(a.pk, SHOP, { auth: a.bearer }),
    ];
    for (const [i, attempt] of attempts.entries()) {
      const reply = await service.get('/browser/v1/widgets', attempt);
      expect({ i, status: reply.status, errors: reply.body.errors }).toEqual({
        i,
        status: 401,
        errors: [expect.stringMatching(/must never be put in a page/)],
      });
      expect(reply.text).not.toContain(a.secretKey);
      expect(reply.text).not.toContain(a.token);
    }
    const captured = await service.post(
      '/browser/v1/email_captures',
      { widget_id: capture.id, email_address: 'y@example.com' },
      { auth: a.bearer, headers: { origin: SHOP } },
    );
    expect(captured.status).toBe(401);
  });

  it('refuses the publishable key on every server route', async () => {
    const asPage = [
      { auth: `Bearer ${a.pk}` },
      { auth: `Publishable ${a.pk}` },
      { headers: { 'x-publishable-key': a.pk } },
      { auth: `Basic ${Buffer.from(`${a.pk}:x`).toString('base64')}` },
    ];
    for (const path of ['/v2/widgets', '/v2/customers', '/v1/campaigns', '/v1/customers']) {
      for (const [i, options] of asPage.entries()) {
        const reply = await service.get(path, options);
        expect({ path, i, status: reply.status, errors: reply.body.errors }).toEqual({
          path,
          i,
          status: 401,
          errors: [expect.stringMatching(/publishable key .* opens only the browser routes/)],
        });
      }
    }
    expect((await service.get('/admin/merchants/' + a.id, { auth: `Bearer ${a.pk}` })).status).toBe(401);
    expect((await service.post('/v2/email_captures', { widget_id: capture.id, email_address: 'z@example.com' }, { auth: `Bearer ${a.pk}` })).status).toBe(401);
  });

  it('answers bad input with 4xx and the errors body: origin lists, keys, widgets, visitors, bodies and query strings', async () => {
    const origins = await service.patch(
      `/admin/merchants/${a.id}`,
      { allowed_origins: [SHOP, 'https://shop.example/cart', 'https://*.shop.example', 42] },
      service.admin,
    );
    expect(origins.status).toBe(400);
    expect(origins.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ property: 'allowed_origins.1', message: expect.stringMatching(/no path/) }),
        expect.objectContaining({ property: 'allowed_origins.2', message: expect.stringMatching(/wildcards/) }),
        expect.objectContaining({ property: 'allowed_origins.3', code: 'wrong_type' }),
      ]),
    );
    expect((await service.get(`/admin/merchants/${a.id}`, service.admin)).body.merchant.allowed_origins).toEqual([SHOP, 'http://localhost:8080']);
    expect((await service.patch(`/admin/merchants/${a.id}`, { allowed_origins: 'https://shop.example' }, service.admin)).status).toBe(400);
    expect((await service.patch(`/admin/merchants/${a.id}`, { allowed_origins: [SHOP, SHOP] }, service.admin)).status).toBe(400);

    const malformed = await service.get('/browser/v1/widgets', { headers: { 'x-publishable-key': 'pk_short!', origin: SHOP } });
    expect([malformed.status, malformed.body.errors]).toEqual([401, [expect.stringMatching(/malformed publishable key/)]]);
    const missing = await service.get('/browser/v1/widgets', { headers: { origin: SHOP } });
    expect([missing.status, missing.body.errors]).toEqual([401, [expect.stringMatching(/missing publishable key/)]]);
    const unknown = await service.get('/browser/v1/widgets', page('pk_nosuchkey0000000000000000000000'));
    expect([unknown.status, unknown.body.errors]).toEqual([401, [expect.stringMatching(/unknown publishable key/)]]);

    const cases: [string, string, unknown, number][] = [
      ['GET', '/browser/v1/widgets/abc/variant?visitor=v', undefined, 404],
      ['GET', `/browser/v1/widgets/${springA.id}/variant`, undefined, 400],
      ['GET', `/browser/v1/widgets/${springA.id}/variant?visitor=${encodeURIComponent('a b<script>')}`, undefined, 400],
      ['GET', `/browser/v1/widgets/${springA.id}/variant?visitor=${'v'.repeat(129)}`, undefined, 400],
      ['GET', `/browser/v1/widgets/${springA.id}/variant?visitor=v&extra=1`, undefined, 400],
      ['GET', '/browser/v1/widgets?limit=5', undefined, 400],
      ['POST', '/browser/v1/email_captures', { widget_id: capture.id, email_address: 'not-an-address' }, 400],
      ['POST', '/browser/v1/email_captures', { widget_id: capture.id, email_address: 'q@example.com', ip_address: '10.0.0.1' }, 400],
      ['POST', '/browser/v1/email_captures', { widget_id: capture.id, email_address: 'q@example.com', referral_code: 'NOSUCHCODE' }, 400],
      ['POST', '/browser/v1/email_captures', { email_address: 'q@example.com' }, 400],
      ['POST', '/browser/v1/email_captures?x=1', { widget_id: capture.id, email_address: 'q@example.com' }, 400],
    ];
    for (const [method, path, body, status] of cases) {
      const reply = await service.request(method, path, page(a.pk, SHOP, { body }));
      expect({ path, body, status: reply.status, errors: Array.isArray(reply.body?.errors) && reply.body.errors.length > 0 }).toEqual({
        path,
        body,
        status,
        errors: true,
      });
      // An allowed page can read its own mistakes.
      expect(reply.headers.get('access-control-allow-origin')).toBe(SHOP);
    }
  });
});

describe('browser routes throttling', () => {
  let service: Service;
  let pk: string;
  let captureId: number;
  beforeAll(async () => {
    service = await Service.start({ env: { BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS: '8', BROWSER_CAPTURES_PER_MINUTE_PER_ADDRESS: '2' } });
    const m = await createMerchant(service, 'Throttled shop');
    pk = (await service.get(`/admin/merchants/${m.id}`, service.admin)).body.merchant.publishable_key;
    await service.patch(`/admin/merchants/${m.id}`, { allowed_origins: [SHOP] }, service.admin);
    captureId = (await createWidget(service, m, { objective: 'email_capture', published: true })).id;
  }, 30_000);
  afterAll(async () => {
    await service.stop();
  });

  it('answers 429 with Retry-After past the captures an address may send, then past its requests, readable by the page', async () => {
    const headers = { 'x-publishable-key': pk, origin: SHOP };
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 3; i += 1) {
      last = await service.post('/browser/v1/email_captures', { widget_id: captureId, email_address: `c${i}@example.com` }, { headers });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
    expect(last!.body.errors).toEqual([expect.stringMatching(/too many email captures from this address; retry after \d+ s/)]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get('access-control-allow-origin')).toBe(SHOP);
    const reads: number[] = [];
    for (let i = 0; i < 6; i += 1) reads.push((await service.get('/browser/v1/widgets', { headers })).status);
    // 8 a minute: 3 captures and 5 reads pass, the 6th read does not; bad keys count too.
    expect(reads).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await service.get('/browser/v1/widgets', { headers: { 'x-publishable-key': 'pk_wrongwrongwrong', origin: SHOP } });
    expect([refused.status, Number(refused.headers.get('retry-after')) >= 1]).toEqual([429, true]);
    // The server routes are not throttled by it.
    expect((await service.get('/health')).status).toBe(200);
  });
});

describe('browser routes in the sandbox', () => {
  const service = serviceForSuite({ sandbox: true });

  it("answers the sample merchant's published key from a local page, and the live API does not know it", async () => {
    const info = (await service().get('/admin/sandbox', service().admin)).body.sandbox;
    expect(info.publishable_key).toBe('pk_sandbox_sample_merchant_0001');
    const headers = { 'x-publishable-key': info.publishable_key, origin: 'http://localhost:8080' };
    const preflight = await service().request('OPTIONS', '/sandbox/browser/v1/widgets', {
      headers: { origin: 'http://localhost:8080', 'access-control-request-method': 'GET' },
    });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, 'http://localhost:8080']);
    const widgets = await service().get('/sandbox/browser/v1/widgets', { headers });
    expect([widgets.status, widgets.headers.get('access-control-allow-origin')]).toEqual([200, 'http://localhost:8080']);
    const ids = (widgets.body.widgets as { id: number; objective: string }[]).map((w) => w.id);
    // The baseline's spring group (1002, 1003) and its email-capture widget (1004); the archived 1005 is hidden.
    expect(ids).toEqual(expect.arrayContaining([1002, 1003, 1004]));
    expect(ids).not.toContain(1005);
    const captured = await service().post('/sandbox/browser/v1/email_captures', { widget_id: 1004, email_address: 'sandbox.page@example.com' }, { headers });
    expect(captured.status).toBe(201);
    expect((await service().get('/browser/v1/widgets', { headers })).status).toBe(401);
  }, 30_000);
});
