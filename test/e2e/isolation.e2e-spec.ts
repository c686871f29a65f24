/**
 * Tenant isolation and customer-token scope, for every route in the OpenAPI document:
 * merchant B reaches none of merchant A's records (404 on ids, never in lists), and a
 * customer token is refused everywhere outside spec §5.2 rule 4.
 */
import { CUSTOMER_TOKEN_ROUTES, Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

describe('tenant isolation and customer-token scope', () => {
  let service: Service;
  let a: TestMerchant;
  let b: TestMerchant;
  let routes: { method: string; path: string }[];
  const fixture: Record<string, string> = {};
  const markers: string[] = [];

  beforeAll(async () => {
    service = await Service.start({ env: { REMINDER_DELAY_MS: '0', SCHEDULER_TICK_MS: '20' } });
    a = await createMerchant(service, 'A');
    b = await createMerchant(service, 'B');
    const auth = { auth: a.bearer };
    const widget = await createWidget(service, a, { name: 'A-secret-widget' });
    const customer = (await service.post('/v2/customers', { account_id: 'a-only-account', email_address: 'a-only@example.com', first_name: 'Aonly' }, auth))
      .body.customer;
    const link = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, auth)).body.referral_link;
    const share = (
      await service.post(
        '/v2/shares',
        { widget_id: widget.id, reward_email_address: 'a-only@example.com', email_recipients: ['a-friend@example.com'], send_reminder: true },
        auth,
      )
    ).body.share;
    const capture = (await service.post('/v2/email_captures', { widget_id: widget.id, email_address: 'a-capture@example.com' }, auth)).body.email_capture;
    const purchase = (await service.post('/v2/purchases', { order_id: 'a-order', referral_code: link.code, email_address: 'a-buyer@example.com' }, auth)).body
      .purchase;
    const conversion = (await service.get('/v2/conversions', auth)).body.results[0];
    const reward = (await service.get('/v2/rewards', auth)).body.results[0];
    const job = (await service.post('/v2/email_opt_out_jobs', { email_addresses: ['a-optout@example.com'] }, auth)).body.email_opt_out_job;
    const erasure = (await service.post('/v2/user_data/delete', { email_addresses: ['a-erased@example.com'] }, auth)).body.user_data_deletion;
    await service.post(`/admin/merchants/${a.id}/coupon_banks`, { name: 'A bank', codes: ['A-COUPON'] }, service.admin);
    await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: 'a-only-account' }, coupon_code: 'A-COUPON' }, { auth: a.basic });
    const reminder = await eventually(async () => {
      const list = (await service.get('/v2/reminder_emails', auth)).body.results;
      expect(list).toHaveLength(1);
      return list[0];
    });
    Object.assign(fixture, {
      '/v1/customers/{id}': String(customer.id),
      '/v1/shares/{id}': String(share.id),
      '/v1/reminder_emails/{id}': String(reminder.id),
      '/v1/purchases/{id}': String(purchase.id),
      '/v1/conversions/{id}': String(conversion.id),
      '/v1/rewards/{id}': String(reward.id),
      '/v1/email_opt_out_jobs/{id}': String(job.id),
      '/v1/user_data/delete/{id}': String(erasure.id),
      '/v2/widgets/{id}': String(widget.id),
      '/v2/customers/{id}': String(customer.id),
      '/v2/referral_links/{code}': link.code,
      '/v2/personal_referral_links/{code}': link.code,
      '/v2/shares/{id}': String(share.id),
      '/v2/reminder_emails/{id}': String(reminder.id),
      '/v2/email_captures/{id}': String(capture.id),
      '/v2/purchases/{id}': String(purchase.id),
      '/v2/conversions/{id}': String(conversion.id),
      '/v2/rewards/{id}': String(reward.id),
      '/v2/email_opt_out_jobs/{id}': String(job.id),
      '/v2/email_opt_outs/{email_address}': 'a-optout@example.com',
      '/v2/user_data/delete/{id}': String(erasure.id),
      '/v2/audit/entities/{entity}': `customer:${customer.id}`,
    });
    markers.push('a-only-account', 'a-only@example.com', 'A-secret-widget', 'a-capture@example.com', 'a-order', 'a-optout@example.com', 'A-COUPON', link.code);
    const doc = (await service.get('/docs-json')).body as { paths: Record<string, Record<string, unknown>> };
    routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path })));
  });
  afterAll(async () => {
    await service.stop();
  });

  const v1OrV2 = (path: string) => path.startsWith('/v1/') || path.startsWith('/v2/');

  it("answers 404 to merchant B on every one of merchant A's ids", async () => {
    const withIds = routes.filter((r) => r.method === 'GET' && v1OrV2(r.path) && r.path.includes('{'));
    const untested = withIds.filter((r) => !(r.path in fixture)).map((r) => r.path);
    expect(untested).toEqual([]);
    for (const r of withIds) {
      const path = r.path.replace(/\{[^}]+\}/, encodeURIComponent(fixture[r.path]));
      const mine = await service.get(path, { auth: r.path.startsWith('/v1') ? a.basic : a.bearer });
      expect({ path, status: mine.status }).toEqual({ path, status: 200 });
      const theirs = await service.get(path, { auth: r.path.startsWith('/v1') ? b.basic : b.bearer });
      expect({ path, status: theirs.status }).toEqual({ path, status: 404 });
      // Echoing the id B itself sent leaks nothing; anything else of A's would.
      for (const marker of markers.filter((m) => !decodeURIComponent(path).includes(m))) expect(theirs.text).not.toContain(marker);
    }
  });

  it("never shows merchant A's records in merchant B's lists", async () => {
    const lists = routes.filter((r) => r.method === 'GET' && v1OrV2(r.path) && !r.path.includes('{') && r.path !== '/v1/customer_info');
    expect(lists.length).toBeGreaterThan(10);
    for (const r of lists) {
      const mine = await service.get(r.path, { auth: r.path.startsWith('/v1') ? a.basic : a.bearer });
      expect({ path: r.path, status: mine.status }).toEqual({ path: r.path, status: 200 });
      const theirs = await service.get(r.path, { auth: r.path.startsWith('/v1') ? b.basic : b.bearer });
      expect({ path: r.path, status: theirs.status }).toEqual({ path: r.path, status: 200 });
      for (const marker of markers) expect({ path: r.path, leaked: theirs.text.includes(marker) ? marker : null }).toEqual({ path: r.path, leaked: null });
    }
    expect((await service.get('/v1/customer_info?account_id=a-only-account', { auth: b.basic })).status).toBe(404);
  });

  it('refuses a customer token (403) on every v2 route outside §5.2 rule 4, and allows it on those', async () => {
    const customerId = fixture['/v2/customers/{id}'];
    const token = `Bearer ${(await service.post('/v2/tokens/customer', { customer_id: Number(customerId) }, { auth: a.bearer })).body.token}`;
    const v2 = routes.filter((r) => r.path.startsWith('/v2/') && !(r.method === 'POST' && r.path === '/v2/tokens/merchant'));
    for (const r of v2) {
      const path = r.path.includes('{') ? r.path.replace(/\{[^}]+\}/, encodeURIComponent(fixture[r.path] ?? '1')) : r.path;
      const reply = await service.request(r.method, path, { auth: token, body: r.method === 'GET' || r.method === 'DELETE' ? undefined : {} });
      const key = `${r.method} ${r.path}`;
      if (CUSTOMER_TOKEN_ROUTES.has(key)) expect({ key, refused: reply.status === 401 || reply.status === 403 }).toEqual({ key, refused: false });
      else expect({ key, status: reply.status }).toEqual({ key, status: 403 });
    }
  });
});
