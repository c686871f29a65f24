import { Service, createMerchant, createWidget } from '../support/service.js';

describe('admin API', () => {
  let service: Service;
  beforeAll(async () => {
    service = await Service.start();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('refuses a missing or wrong admin token', async () => {
    expect((await service.post('/admin/merchants', { name: 'x' })).status).toBe(401);
    const wrong = await service.post('/admin/merchants', { name: 'x' }, { auth: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors).toEqual(['missing or invalid admin token']);
  });

  it('registers a merchant, shows the secret key once, and never again', async () => {
    const created = await service.post('/admin/merchants', { name: 'Acme' }, service.admin);
    expect(created.status).toBe(201);
    const m = created.body.merchant;
    expect(m).toEqual({
      id: expect.any(Number),
      name: 'Acme',
      access_key: expect.stringMatching(/^ak_/),
      secret_key: expect.stringMatching(/^sk_/),
      publishable_key: expect.stringMatching(/^pk_/),
    });
    const read = await service.get(`/admin/merchants/${m.id}`, service.admin);
    expect(read.status).toBe(200);
    expect(read.body.merchant).toMatchObject({
      id: m.id,
      name: 'Acme',
      access_key: m.access_key,
      publishable_key: m.publishable_key,
      allowed_origins: [],
      can_see_recipients: false,
    });
    expect(read.text).not.toContain(m.secret_key);
    expect((await service.get('/admin/merchants/999999', service.admin)).status).toBe(404);
  });

  it('rotates a secret key: shown once, the old key and every token issued before stop working at once', async () => {
    const m = await createMerchant(service);
    const customer = (await service.post('/v2/customers', { account_id: 'rotation' }, { auth: m.bearer })).body.customer;
    const customerToken = (await service.post('/v2/tokens/customer', { customer_id: customer.id }, { auth: m.bearer })).body.token;
    const rotated = await service.post(`/admin/merchants/${m.id}/secret_key`, undefined, service.admin);
    expect(rotated.status).toBe(200);
    const secret = rotated.body.merchant.secret_key as string;
    expect(rotated.body.merchant).toEqual({
      id: m.id,
      name: expect.any(String),
      access_key: m.accessKey,
      secret_key: expect.stringMatching(/^sk_/),
      publishable_key: expect.stringMatching(/^pk_/),
    });
    expect(secret).not.toBe(m.secretKey);
    const basic = (key: string) => `Basic ${Buffer.from(`${m.accessKey}:${key}`).toString('base64')}`;
    expect((await service.get('/v1/campaigns', { auth: basic(m.secretKey) })).status).toBe(401);
    expect((await service.get('/v2/widgets', { auth: m.bearer })).status).toBe(401);
    expect((await service.get('/v2/shares', { auth: `Bearer ${customerToken}` })).status).toBe(401);
    expect((await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: m.secretKey })).status).toBe(401);
    expect((await service.get('/v1/campaigns', { auth: basic(secret) })).status).toBe(200);
    const fresh = await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: secret });
    expect((await service.get('/v2/widgets', { auth: `Bearer ${fresh.body.token}` })).status).toBe(200);
    // Never shown again; an unknown merchant is 404.
    expect((await service.get(`/admin/merchants/${m.id}`, service.admin)).text).not.toContain(secret);
    expect((await service.post('/admin/merchants/999999/secret_key', undefined, service.admin)).status).toBe(404);
    expect((await service.post(`/admin/merchants/${m.id}/secret_key`, undefined, { auth: m.bearer })).status).toBe(401);
  });

  it('changes merchant settings', async () => {
    const m = await createMerchant(service);
    const changed = await service.patch(`/admin/merchants/${m.id}`, { can_see_recipients: true, name: 'Renamed' }, service.admin);
    expect(changed.status).toBe(200);
    expect(changed.body.merchant).toMatchObject({ name: 'Renamed', can_see_recipients: true });
    expect((await service.patch(`/admin/merchants/${m.id}`, { can_see_recipients: 'yes' }, service.admin)).status).toBe(400);
  });

  it('creates widgets with defaults and validates their rules', async () => {
    const m = await createMerchant(service);
    const w = await createWidget(service, m, { reward_criteria: { new_customers_only: true }, fraud_checks: { same_ip: true } });
    expect(w).toMatchObject({
      widget_group_id: String(w.id),
      objective: 'referral',
      distribution: 100,
      published: false,
      active: true,
      archived: false,
      is_champion: false,
      reward_type: 'fixed_cash',
      reward_amount: 10,
      reward_criteria: {
        new_customers_only: true,
        minimum_purchase_amount: null,
        max_rewards_per_advocate: null,
        max_reward_amount_per_advocate: null,
        cap_window_days: null,
      },
      fraud_checks: { same_customer: true, same_email: true, similar_email: false, same_ip: true },
    });
    const bad = await service.post(
      `/admin/merchants/${m.id}/widgets`,
      { name: 'x', distribution: 101, objective: 'nope', reward_criteria: { bogus: 1 } },
      service.admin,
    );
    expect(bad.status).toBe(400);
    const props = bad.body.errors.map((e: { property: string }) => e.property);
    expect(props).toEqual(expect.arrayContaining(['distribution', 'objective', 'reward_criteria.bogus']));
    const pairless = await service.post(`/admin/merchants/${m.id}/widgets`, { name: 'x', reward_type: 'fixed_cash' }, service.admin);
    expect(pairless.status).toBe(400);
    expect((await service.post(`/admin/merchants/424242/widgets`, { name: 'x' }, service.admin)).status).toBe(404);
  });

  it("takes a widget's reward amounts as money: at most 4 decimal places and 1,000,000,000, on create and update", async () => {
    const m = await createMerchant(service);
    const w = await createWidget(service, m);
    const faults = async (fields: Record<string, unknown>) => {
      const criteria = { minimum_purchase_amount: fields.amount, max_reward_amount_per_advocate: fields.amount };
      const created = await service.post(
        `/admin/merchants/${m.id}/widgets`,
        { name: 'x', reward_type: 'fixed_cash', reward_amount: fields.amount, reward_criteria: criteria },
        service.admin,
      );
      const changed = await service.patch(
        `/admin/merchants/${m.id}/widgets/${w.id}`,
        { reward_type: 'fixed_cash', reward_amount: fields.amount, reward_criteria: criteria },
        service.admin,
      );
      const codes = (r: { body: { errors?: { property: string; code: string }[] } }) => (r.body.errors ?? []).map((e) => `${e.property}:${e.code}`).sort();
      return [created.status, changed.status, codes(created), codes(changed)];
    };
    const refused = ['reward_amount:invalid', 'reward_criteria.max_reward_amount_per_advocate:invalid', 'reward_criteria.minimum_purchase_amount:invalid'];
    // Amounts the cap check added in millionths, or past what a double adds exactly.
    for (const amount of [0.0000006, 0.0000004, 0.00001, 1e308, 1_000_000_000.0001]) expect(await faults({ amount })).toEqual([400, 400, refused, refused]);
    expect(await faults({ amount: '5' })).toEqual([
      400,
      400,
      refused.map((r) => r.replace('invalid', 'wrong_type')),
      refused.map((r) => r.replace('invalid', 'wrong_type')),
    ]);
    // Nothing was changed by the refused updates.
    expect((await service.get(`/admin/merchants/${m.id}/widgets/${w.id}`, service.admin)).body.widget).toMatchObject({
      reward_amount: 10,
      reward_criteria: { max_reward_amount_per_advocate: null },
    });
    for (const amount of [0.0001, 999_999_999.9999, 1_000_000_000]) expect(await faults({ amount })).toEqual([201, 200, [], []]);
  });

  it('publishes, archives and crowns one champion per group', async () => {
    const m = await createMerchant(service);
    const a = await createWidget(service, m, { widget_group_id: 'spring', distribution: 50, is_champion: true });
    const b = await createWidget(service, m, { widget_group_id: 'spring', distribution: 50 });
    const crowned = await service.patch(`/admin/merchants/${m.id}/widgets/${b.id}`, { is_champion: true, published: true }, service.admin);
    expect(crowned.status).toBe(200);
    expect(crowned.body.widget).toMatchObject({ is_champion: true, published: true });
    const list = await service.get(`/admin/merchants/${m.id}/widgets`, service.admin);
    const byId = Object.fromEntries(list.body.widgets.map((w: { id: number }) => [w.id, w]));
    expect(byId[a.id].is_champion).toBe(false);
    expect(byId[b.id].is_champion).toBe(true);
    const archived = await service.patch(`/admin/merchants/${m.id}/widgets/${a.id}`, { archived: true }, service.admin);
    expect(archived.body.widget.archived).toBe(true);
    const other = await createMerchant(service);
    expect((await service.patch(`/admin/merchants/${other.id}/widgets/${a.id}`, { archived: false }, service.admin)).status).toBe(404);
  });

  it('leaves exactly one champion when variants are crowned at once', async () => {
    const m = await createMerchant(service);
    const champions = async () =>
      ((await service.get(`/admin/merchants/${m.id}/widgets`, service.admin)).body.widgets as { id: number; widget_group_id: string; is_champion: boolean }[])
        .filter((w) => w.widget_group_id === 'race' && w.is_champion)
        .map((w) => w.id);
    const variants = [];
    for (let i = 0; i < 6; i += 1) variants.push(await createWidget(service, m, { widget_group_id: 'race' }));
    const crowned = await Promise.all(variants.map((v) => service.patch(`/admin/merchants/${m.id}/widgets/${v.id}`, { is_champion: true }, service.admin)));
    expect(crowned.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(await champions()).toHaveLength(1);
    const created = await Promise.all(
      Array.from({ length: 4 }, () =>
        service.post(`/admin/merchants/${m.id}/widgets`, { name: 'New champion', widget_group_id: 'race', is_champion: true }, service.admin),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(4).fill(201));
    expect(await champions()).toHaveLength(1);
    // Then one at a time: the last crowned is the champion.
    const [first, second] = variants;
    await service.patch(`/admin/merchants/${m.id}/widgets/${first.id}`, { is_champion: true }, service.admin);
    await service.patch(`/admin/merchants/${m.id}/widgets/${second.id}`, { is_champion: true }, service.admin);
    expect(await champions()).toEqual([second.id]);
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  it('is off, and says so', async () => {
    const service = await Service.start({ env: { ADMIN_TOKEN: '' } });
    try {
      const r = await service.post('/admin/merchants', { name: 'x' }, { auth: 'Bearer anything' });
      expect(r.status).toBe(404);
      expect(r.body.errors[0]).toMatch(/admin API is disabled/);
    } finally {
      await service.stop();
    }
  });
});
