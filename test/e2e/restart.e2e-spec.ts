/** A restart on the same DATA_DIR keeps every merchant, widget, customer and token. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Service, createMerchant, createWidget, eventually } from '../support/service.js';

describe('restart on the same DATA_DIR', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'referral-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('rebuilds identical read models and keeps tokens and their revocation', async () => {
    const first = await Service.start({ dataDir });
    const a = await createMerchant(first, 'A');
    const b = await createMerchant(first, 'B');
    await createWidget(first, a, { widget_group_id: 'g' });
    await createWidget(first, b);
    for (let i = 0; i < 30; i += 1) await first.post('/v2/customers', { account_id: `c${i}`, first_name: `N${i}` }, { auth: a.bearer });
    await first.post('/v2/customers', { account_id: 'c3', last_name: 'Changed' }, { auth: a.bearer });
    const customer = (await first.get('/v2/customers?account_id=c1', { auth: a.bearer })).body.results[0];
    const customerToken = (await first.post('/v2/tokens/customer', { customer_id: customer.id }, { auth: a.bearer })).body.token;
    // b revokes: its old token must stay dead after the restart.
    await first.delete('/v2/tokens/merchant', { access_key: b.accessKey, secret_key: b.secretKey }, { auth: b.bearer });
    const snapshot = async (s: Service) => ({
      customers: (await s.get('/v2/customers?limit=100', { auth: a.bearer })).body,
      widgets: (await s.get('/v2/widgets', { auth: a.bearer })).body,
      v1customers: (await s.get('/v1/customers?limit=100', { auth: a.basic })).body,
      campaigns: (await s.get('/v1/campaigns', { auth: b.basic })).body,
      merchant: (await s.get(`/admin/merchants/${a.id}`, s.admin)).body,
    });
    const before = await snapshot(first);
    const origin = first.url;
    await first.stop(true);

    const second = await Service.start({ dataDir });
    try {
      const after = await snapshot(second);
      // Links carry the listening origin, which changed with the port.
      expect(JSON.parse(JSON.stringify(after).split(second.url).join(origin))).toEqual(before);
      expect(before.customers.results_count).toBe(30);
      expect((await second.get('/v2/widgets', { auth: a.bearer })).status).toBe(200);
      expect((await second.get('/v2/widgets', { auth: b.bearer })).status).toBe(401);
      expect((await second.post('/v2/customers', { account_id: 'c1' }, { auth: a.bearer })).status).toBe(200);
      expect(customerToken).toMatch(/^ct_/);
    } finally {
      await second.stop();
    }
  });

  it('issues no id again when the clock is behind the last stored event after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'referral-restart-clock-'));
    const at = (iso: string) => ({ now: () => new Date(iso) });
    try {
      const first = await Service.start({ dataDir: dir, clock: at('2026-06-01T12:00:00.000Z') });
      const merchant = await createMerchant(first, 'Clock');
      const before = [];
      for (let i = 0; i < 3; i += 1) before.push((await first.post('/v2/customers', { account_id: `early-${i}` }, { auth: merchant.bearer })).body.customer.id);
      await first.stop(true);
      // The machine's clock stepped back an hour while the service was down.
      const second = await Service.start({ dataDir: dir, clock: at('2026-06-01T11:00:00.000Z') });
      try {
        const created = await second.post('/v2/customers', { account_id: 'late' }, { auth: merchant.bearer });
        expect(created.status).toBe(201);
        expect(created.body.customer.id).toBeGreaterThan(Math.max(...before));
        const listed = (await second.get('/v2/customers?limit=10', { auth: merchant.bearer })).body.results.map((c: { account_id: string }) => c.account_id);
        expect(listed.sort()).toEqual(['early-0', 'early-1', 'early-2', 'late']);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives no reward at a restart to a conversion made while its widget offered none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'referral-restart-reward-'));
    try {
      const first = await Service.start({ dataDir: dir });
      const m = await createMerchant(first, 'No reward yet');
      const widget = await createWidget(first, m, { reward_type: null, reward_amount: null });
      const advocate = (await first.post('/v2/customers', { account_id: 'adv', email_address: 'adv@example.com' }, { auth: m.bearer })).body.customer;
      const code = (await first.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: advocate.id }, { auth: m.bearer })).body.referral_link
        .code;
      expect((await first.post('/v2/purchases', { order_id: 'before-reward', referral_code: code }, { auth: m.bearer })).status).toBe(201);
      // The reward is for conversions from now on.
      expect((await first.patch(`/admin/merchants/${m.id}/widgets/${widget.id}`, { reward_type: 'fixed_cash', reward_amount: 25 }, first.admin)).status).toBe(
        200,
      );
      const conversionsBefore = (await first.get('/v2/conversions', { auth: m.bearer })).body;
      await first.stop(true);
      const second = await Service.start({ dataDir: dir });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect((await second.get('/v2/rewards', { auth: m.bearer })).body.results).toEqual([]);
        expect(
          JSON.parse(
            JSON.stringify((await second.get('/v2/conversions', { auth: m.bearer })).body)
              .split(second.url)
              .join(first.url),
          ),
        ).toEqual(conversionsBefore);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an opt-out job cut off by a restart', () => {
  it('counts the addresses its interrupted run opted out as its own when it resumes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'referral-restart-optout-'));
    try {
      const first = await Service.start({ dataDir: dir });
      const m = await createMerchant(first, 'Opt-outs');
      const addresses = Array.from({ length: 3000 }, (_, i) => `someone-${i}@example.com`);
      const job = (await first.post('/v2/email_opt_out_jobs', { email_addresses: addresses }, { auth: m.bearer })).body.email_opt_out_job;
      // Stopped while the job runs (it opts out one address at a time).
      await new Promise((resolve) => setTimeout(resolve, 150));
      await first.stop(true);
      const second = await Service.start({ dataDir: dir });
      try {
        const done = await eventually(async () => {
          const j = (await second.get(`/v2/email_opt_out_jobs/${job.id}`, { auth: m.bearer })).body.email_opt_out_job;
          expect(j.status).toBe('completed');
          return j;
        }, 20_000);
        expect(done).toMatchObject({ opted_out_count: 3000, already_opted_out_count: 0 });
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
