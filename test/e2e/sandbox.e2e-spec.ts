import { Reply, Service, createMerchant, eventually } from '../support/service.js';

const LISTS_V2 = [
  '/v2/widgets',
  '/v2/customers',
  '/v2/personal_referral_links',
  '/v2/shares',
  '/v2/reminder_emails',
  '/v2/email_captures',
  '/v2/purchases',
  '/v2/conversions',
  '/v2/rewards',
  '/v2/coupons',
  '/v2/email_opt_outs',
];
const LISTS_V1 = ['/v1/campaigns', '/v1/customers'];

async function sandboxAuth(service: Service) {
  const info = (await service.get('/admin/sandbox', service.admin)).body.sandbox;
  const token = (await service.post('/sandbox/v2/tokens/merchant', { access_key: info.access_key, secret_key: info.secret_key })).body.token;
  return { info, bearer: `Bearer ${token}`, basic: `Basic ${Buffer.from(`${info.access_key}:${info.secret_key}`).toString('base64')}` };
}

/** Every list endpoint, with the service's own origin taken out of the links. */
async function snapshot(service: Service, auth: { bearer: string; basic: string }) {
  const out: Record<string, unknown> = {};
  for (const path of LISTS_V2) out[path] = (await service.get(`/sandbox${path}?limit=100`, { auth: auth.bearer })).body;
  for (const path of LISTS_V1) out[path] = (await service.get(`/sandbox${path}?limit=100`, { auth: auth.basic })).body;
  return JSON.parse(JSON.stringify(out).split(service.url).join('<origin>'));
}

describe('sandbox', () => {
  let service: Service;
  beforeAll(async () => {
    service = await Service.start({ sandbox: true });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('serves the sample merchant with every kind of sample data, through the same routes and auth', async () => {
    const auth = await sandboxAuth(service);
    expect(auth.info).toMatchObject({ base_paths: ['/sandbox/v1', '/sandbox/v2'], access_key: 'ak_sandbox_sample_merchant_0001', generation: 1 });
    expect(Date.parse(auth.info.next_reset_at)).toBeGreaterThan(Date.now());
    const get = async (path: string) => (await service.get(`/sandbox${path}?limit=100`, { auth: auth.bearer })).body.results;
    const widgets = await get('/v2/widgets');
    expect(
      widgets.filter((w: { widget_group_id: string }) => w.widget_group_id === 'spring-2026').map((w: { distribution: number }) => w.distribution),
    ).toEqual([60, 40]);
    const campaigns = (await service.get('/sandbox/v1/campaigns', { auth: auth.basic })).body.results;
    expect(campaigns.filter((c: { is_champion: boolean }) => c.is_champion)).toHaveLength(1);
    expect(campaigns.some((c: { archived: boolean }) => c.archived)).toBe(true);
    expect((await get('/v2/customers')).length).toBeGreaterThanOrEqual(5);
    const customer = (await get('/v2/customers'))[0];
    const codes = await Promise.all(
      (await get('/v2/personal_referral_links')).map((l: { code: string }) => service.get(`/sandbox/v2/referral_links/${l.code}`, { auth: auth.bearer })),
    );
    const types = new Set(codes.map((r) => r.body.referral_link.type));
    const share = (await get('/v2/shares'))[0];
    const reminder = (await get('/v2/reminder_emails'))[0];
    types.add((await service.get(share.referral_link.replace(service.url, ''), { auth: auth.bearer })).body.referral_link.type);
    types.add((await service.get(reminder.referral_link.replace(service.url, ''), { auth: auth.bearer })).body.referral_link.type);
    expect([...types].sort()).toEqual(['customer_personal_url', 'email_personal_url', 'reminder_email', 'share', 'vanity_personal_url']);
    expect(share.referral_link.startsWith(`${service.url}/sandbox/v2/referral_links/`)).toBe(true);
    expect((await get('/v2/purchases')).length).toBeGreaterThanOrEqual(5);
    expect((await get('/v2/conversions')).length).toBeGreaterThanOrEqual(4);
    const statuses = (await get('/v2/rewards')).map((r: { status: string }) => r.status);
    expect(statuses).toEqual(expect.arrayContaining(['approved', 'rejected']));
    expect((await get('/v2/coupons')).map((c: { code: string }) => c.code)).toEqual(['SPRING-FRIEND-01']);
    expect((await get('/v2/email_opt_outs')).length).toBe(2);
    // Email captures on the capture widget, one through Ada's link.
    const captures = await get('/v2/email_captures');
    expect(captures.map((c: { email_address: string }) => c.email_address).sort()).toEqual([
      'friend.three@outdoor-sample.example',
      'newsletter.fan@outdoor-sample.example',
    ]);
    const captureWidget = widgets.find((w: { name: string }) => w.name === 'Newsletter capture');
    expect(captures.every((c: { widget: string }) => c.widget === `${service.url}/sandbox/v2/widgets/${captureWidget.id}`)).toBe(true);
    expect(captures.filter((c: { referral_link: string | null }) => c.referral_link !== null)).toHaveLength(1);
    const optOutJob = (await get('/v2/email_opt_outs'))[0].job_id;
    expect((await service.get(`/sandbox/v2/email_opt_out_jobs/${optOutJob}`, { auth: auth.bearer })).body.email_opt_out_job.status).toBe('completed');
    expect((await service.get(`/sandbox/v1/customers/${customer.id}`, { auth: auth.basic })).status).toBe(200);
    // The same sample data through v1, with links that stay in the sandbox.
    const v1 = async (path: string) => (await service.get(`/sandbox/v1${path}?limit=100`, { auth: auth.basic })).body;
    expect((await v1('/purchases')).total_results_count).toBe((await get('/v2/purchases')).length);
    const v1Share = (await v1('/shares')).results[0];
    expect(v1Share.detail_uri).toBe(`${service.url}/sandbox/v1/shares/${share.id}`);
    expect((await service.get(v1Share.detail_uri.replace(service.url, ''), { auth: auth.basic })).body).toEqual(v1Share);
    expect((await v1('/conversions')).total_results_count).toBe((await get('/v2/conversions')).length);
    expect((await v1('/rewards')).results.map((r: { status: string }) => r.status)).toEqual(statuses);
    expect((await v1('/reminder_emails')).results[0].share.detail_uri).toMatch(`${service.url}/sandbox/v1/shares/`);
    expect((await v1('/coupons')).results.map((c: { code: string }) => c.code)).toEqual(['SPRING-FRIEND-01']);
    expect((await v1('/email_opt_outs')).total_results_count).toBe(2);
    // A percent-encoded prefix is the sandbox too, and its links stay there.
    const encoded = await service.get('/%73andbox/v1/shares?limit=1', { auth: auth.basic });
    expect(encoded.body.results[0].detail_uri).toBe(v1Share.detail_uri);
    // Errors behave as live.
    expect((await service.get('/sandbox/v2/widgets')).status).toBe(401);
    expect((await service.request('PUT', '/sandbox/v2/widgets', { auth: auth.bearer })).status).toBe(405);
    expect((await service.get('/sandbox/v2/nothing', { auth: auth.bearer })).status).toBe(404);
    // Methods no sandbox route takes get the sandbox's own answer, as live: its Allow, or a 404
    // for a path it does not have (the live catch-all's methods were offered in Allow).
    const options = await service.request('OPTIONS', '/sandbox/v2/widgets', { auth: auth.bearer });
    expect([options.status, options.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await service.request('OPTIONS', '/sandbox/v2/nothing', { auth: auth.bearer })).status).toBe(404);
  });

  it('redirects its trackable links as live does: a 302 with no body and no content type', async () => {
    const r = await fetch(`${service.url}/sandbox/l/alan-outdoors`, { redirect: 'manual' });
    expect([r.status, r.headers.get('content-type'), await r.text()]).toEqual([302, null, '']);
    expect(r.headers.get('location')).toContain('referral_code=alan-outdoors');
  });

  it('keeps live and sandbox apart both ways', async () => {
    const auth = await sandboxAuth(service);
    const live = await createMerchant(service, 'Live shop');
    expect((await service.get('/v2/widgets', { auth: auth.bearer })).status).toBe(401);
    expect((await service.get('/v1/campaigns', { auth: auth.basic })).status).toBe(401);
    expect((await service.get('/sandbox/v2/widgets', { auth: live.bearer })).status).toBe(401);
    expect((await service.post('/sandbox/v2/tokens/merchant', { access_key: live.accessKey, secret_key: live.secretKey })).status).toBe(401);
    await service.post('/v2/customers', { account_id: 'live-only' }, { auth: live.bearer });
    const sandboxCustomers = (await service.get('/sandbox/v2/customers?account_id=live-only', { auth: auth.bearer })).body.results;
    expect(sandboxCustomers).toEqual([]);
    await service.post('/sandbox/v2/customers', { account_id: 'sandbox-only' }, { auth: auth.bearer });
    expect((await service.get('/v2/customers?account_id=sandbox-only', { auth: live.bearer })).body.results).toEqual([]);
    const admin = await service.get('/sandbox/admin/merchants/1', service.admin);
    expect(admin.status).toBe(404);
    // Not "start the service with ADMIN_TOKEN set": it is set, and the sandbox has no admin API anyway.
    expect(admin.body.errors).toEqual(['the sandbox has no admin API: administer the live service under /admin']);
  });

  it("answers malformed bodies with the live API's error body and status", async () => {
    const auth = await sandboxAuth(service);
    const cases: [string, Record<string, string>, string, string?][] = [
      ['{"account_id":"a"}', { 'content-type': 'text/plain' }, 'text body'],
      ['{', { 'content-type': 'application/json' }, 'truncated JSON'],
      ['', { 'content-type': 'application/json' }, 'empty JSON body'],
      ['{"__proto__":{"x":1}}', { 'content-type': 'application/json' }, '__proto__ key'],
      // Numbers JSON parses but cannot keep: refused as live refuses them, not re-encoded as null.
      ['{"order_id":"INF-1","payment_amount":1e400}', { 'content-type': 'application/json' }, 'infinite amount', '/v2/purchases'],
      ['{"order_id":"INF-2","products":[{"sku":"A","quantity":1,"price":1e400}]}', { 'content-type': 'application/json' }, 'infinite price', '/v2/purchases'],
    ];
    for (const [raw, headers, label, path = '/v2/customers'] of cases) {
      const live = await service.request('POST', path, { raw, headers, auth: (await createMerchant(service, label)).bearer });
      const sandbox = await service.request('POST', `/sandbox${path}`, { raw, headers, auth: auth.bearer });
      expect({ label, status: sandbox.status, body: sandbox.body }).toEqual({ label, status: live.status, body: live.body });
      expect({ label, errors: Array.isArray(sandbox.body?.errors) }).toEqual({ label, errors: true });
    }
    // Bodies the live API takes but the sandbox's smaller limit does not (SANDBOX_BODY_LIMIT, 32 KiB by default): a 413 saying so.
    for (const raw of [JSON.stringify({ account_id: 'big', first_name: 'x'.repeat(40_000) }), ' '.repeat(1024 * 1024 + 10)]) {
      const tooBig = await service.request('POST', '/sandbox/v2/customers', { raw, headers: { 'content-type': 'application/json' }, auth: auth.bearer });
      expect([tooBig.status, tooBig.body]).toEqual([413, { errors: ['sandbox request bodies are at most 32768 bytes (SANDBOX_BODY_LIMIT)'] }]);
    }
    expect((await service.get('/sandbox/v2/customers?account_id=big', { auth: auth.bearer })).body.results).toEqual([]);
    // A route the sandbox does not have is a 404 (a path of another method's a 405) before its body
    // is read, whatever the body, as live: not a 415 or 413 about a body no route would take.
    const unrouted: [string, string, string, Record<string, string>][] = [
      ['POST', '/v2/nothing', '{"a":1}', { 'content-type': 'text/plain' }],
      ['POST', '/v2/nothing', ' '.repeat(1024 * 1024 + 10), { 'content-type': 'application/json' }],
      ['PUT', '/v2/widgets', 'x', { 'content-type': 'application/x-www-form-urlencoded' }],
    ];
    for (const [method, path, raw, headers] of unrouted) {
      const live = await service.request(method, path, { raw, headers, auth: (await createMerchant(service, `${method} ${path}`)).bearer });
      const sandbox = await service.request(method, `/sandbox${path}`, { raw, headers, auth: auth.bearer });
      const seen = (r: Reply) => ({
        path,
        status: r.status,
        allow: r.headers.get('allow'),
        errors: r.body.errors.map((e: string) => e.replace('/sandbox/', '/')),
      });
      expect(seen(sandbox)).toEqual(seen(live));
      expect([path, live.status]).toEqual([path, method === 'PUT' ? 405 : 404]);
    }
    // An empty body sent as JSON is no body on a DELETE, forwarded as it is live.
    const removed = await service.request('DELETE', '/sandbox/v2/email_opt_outs/no-mail@outdoor-sample.example', {
      raw: '',
      headers: { 'content-type': 'application/json' },
      auth: auth.bearer,
    });
    expect([removed.status, removed.body]).toEqual([200, { success: true }]);
  });

  it('returns exactly to the baseline on reset, the same baseline as any other process, and keeps the keys working', async () => {
    await service.post('/admin/sandbox/reset', undefined, service.admin);
    const auth = await sandboxAuth(service);
    const baseline = await snapshot(service, auth);
    const widget = (await service.get('/sandbox/v2/widgets', { auth: auth.bearer })).body.results[0];
    await service.post('/sandbox/v2/customers', { account_id: 'added-in-sandbox' }, { auth: auth.bearer });
    const link = (await service.post('/sandbox/v2/personal_referral_links', { widget_id: widget.id, email_address: 'new@example.com' }, { auth: auth.bearer }))
      .body.referral_link;
    await service.post('/sandbox/v2/purchases', { order_id: 'NEW-1', referral_code: link.code }, { auth: auth.bearer });
    await service.patch(`/sandbox/v2/personal_referral_links/${link.code}`, { link_parameters: { a: 1 } }, { auth: auth.bearer });
    expect(await snapshot(service, auth)).not.toEqual(baseline);
    const reset = await service.post('/admin/sandbox/reset', undefined, service.admin);
    expect(reset.status).toBe(200);
    expect(reset.body.sandbox.generation).toBe(auth.info.generation + 1);
    // The sample keys are the same after a reset, and so is a token issued before it.
    expect((await service.get('/sandbox/v2/widgets', { auth: auth.bearer })).status).toBe(200);
    expect(await snapshot(service, await sandboxAuth(service))).toEqual(baseline);
    const other = await Service.start({ sandbox: true });
    try {
      expect(await snapshot(other, await sandboxAuth(other))).toEqual(baseline);
    } finally {
      await other.stop();
    }
  }, 30_000);

  it('keeps merchant and customer tokens across resets, and a revoked token revoked', async () => {
    const auth = await sandboxAuth(service);
    const customer = (await service.get('/sandbox/v2/customers?account_id=cust-ada', { auth: auth.bearer })).body.results[0];
    const customerToken = `Bearer ${(await service.post('/sandbox/v2/tokens/customer', { customer_id: customer.id }, { auth: auth.bearer })).body.token}`;
    await service.post('/admin/sandbox/reset', undefined, service.admin);
    // An integrator's stored token, and a customer's 10-minute one, outlive the reset.
    expect((await service.get('/sandbox/v2/widgets', { auth: auth.bearer })).status).toBe(200);
    const shares = await service.get('/sandbox/v2/shares', { auth: customerToken });
    expect([shares.status, shares.body.results.length]).toEqual([200, 1]);

    const keys = { access_key: auth.info.access_key, secret_key: auth.info.secret_key };
    const revoked = await service.delete('/sandbox/v2/tokens/merchant', keys, { auth: auth.bearer });
    expect(revoked.status).toBe(200);
    const kept = await sandboxAuth(service);
    for (const bearer of [auth.bearer, customerToken]) expect((await service.get('/sandbox/v2/shares', { auth: bearer })).status).toBe(401);
    // The revocation outlives resets (the sample merchant is rebuilt at token generation 0 each
    // time), while the token issued after it keeps working.
    for (let reset = 0; reset < 2; reset++) {
      await service.post('/admin/sandbox/reset', undefined, service.admin);
      for (const bearer of [auth.bearer, customerToken]) {
        const r = await service.get('/sandbox/v2/shares', { auth: bearer });
        expect([r.status, r.body.errors]).toEqual([401, ['invalid or revoked token']]);
      }
      expect((await service.get('/sandbox/v2/widgets', { auth: kept.bearer })).status).toBe(200);
    }
    // A token is still revoked with DELETE after the resets, and the sample keys work throughout.
    expect((await service.delete('/sandbox/v2/tokens/merchant', keys, { auth: kept.bearer })).status).toBe(200);
    expect((await service.get('/sandbox/v2/widgets', { auth: kept.bearer })).status).toBe(401);
    const fresh = await sandboxAuth(service);
    expect((await service.get('/sandbox/v2/widgets', { auth: fresh.bearer })).status).toBe(200);
    expect((await service.get('/sandbox/v1/campaigns', { auth: fresh.basic })).status).toBe(200);
  });

  it('issues tokens that no other process opens, though its sample merchant has the same keys', async () => {
    const auth = await sandboxAuth(service);
    const other = await Service.start({ sandbox: true });
    try {
      const r = await other.get('/sandbox/v2/widgets', { auth: auth.bearer });
      expect([r.status, r.body.errors]).toEqual([401, ['invalid or revoked token']]);
    } finally {
      await other.stop();
    }
  }, 30_000);

  it('counts the next timed reset from a reset asked for by hand', async () => {
    const short = await Service.start({ sandbox: true, env: { SANDBOX_RESET_INTERVAL_MS: '4000' } });
    try {
      const generation = async () => (await short.get('/admin/sandbox', short.admin)).body.sandbox.generation as number;
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      await pause(2500);
      const manual = (await short.post('/admin/sandbox/reset', undefined, short.admin)).body.sandbox;
      expect(Date.parse(manual.next_reset_at) - Date.now()).toBeGreaterThan(3000);
      // Past the beat an interval timer kept from the start (4 s after it), the manual reset's generation stays.
      await pause(2500);
      expect(await generation()).toBe(manual.generation);
      await eventually(async () => expect(await generation()).toBe(manual.generation + 1), 10_000);
    } finally {
      await short.stop();
    }
  }, 30_000);

  it('resets under concurrent traffic without a single failed request', async () => {
    const auth = await sandboxAuth(service);
    let stop = false;
    const statuses: number[] = [];
    // With the sample keys and with a token, which both open every generation.
    const readers = Array.from({ length: 4 }, async (_, i) => {
      while (!stop) {
        const r =
          i % 2 === 0
            ? await service.get('/sandbox/v1/purchases?limit=5', { auth: auth.basic })
            : await service.get('/sandbox/v2/purchases?limit=5', { auth: auth.bearer });
        statuses.push(r.status);
      }
    });
    const servedBefore = statuses.length;
    await service.post('/admin/sandbox/reset', undefined, service.admin);
    await service.post('/admin/sandbox/reset', undefined, service.admin);
    const servedDuring = statuses.length - servedBefore;
    stop = true;
    await Promise.all(readers);
    // Requests were answered while the resets ran, and every one of them succeeded.
    expect(servedDuring).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
