/**
 * The v1 endpoints the spec lists as "not shown" (shares, purchases, conversions, rewards,
 * reminder emails, coupons, email opt-outs; docs/api-decisions.md): v2's bodies and filters,
 * v1's Basic auth, offset paging, SearchResults and records that embed campaigns and customers.
 */
import { ManualClock } from '../../src/platform/clock.js';
import { Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

const DAY = 24 * 3600 * 1000;

describe('v1 shares, purchases, conversions, rewards, reminder emails, coupons and opt-outs', () => {
  const clock = new ManualClock(new Date('2026-04-01T10:00:00.000Z'));
  let service: Service;
  let m: TestMerchant;
  let widget: { id: number };
  let campaign: Record<string, unknown>;
  beforeAll(async () => {
    service = await Service.start({ clock, env: { REMINDER_DELAY_MS: String(3 * DAY), SCHEDULER_TICK_MS: '20' } });
    m = await createMerchant(service);
    widget = await createWidget(service, m, { reward_type: 'chargebee_credit', reward_amount: 7 });
    campaign = {
      id: widget.id,
      name: 'Give $10',
      published: expect.any(Boolean),
      referral_incentive: { type: 'other', value: 7 },
      created_at: '2026-04-01T10:00:00.000Z',
    };
  });
  afterAll(async () => {
    await service.stop();
  });
  const v1 = () => ({ auth: m.basic });
  const v2 = () => ({ auth: m.bearer });

  async function advocate(accountId: string) {
    const customer = (
      await service.post('/v2/customers', { account_id: accountId, email_address: `${accountId}@example.com`, first_name: 'Ann', last_name: 'Lee' }, v2())
    ).body.customer;
    const link = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, v2())).body.referral_link;
    return { customer, code: link.code as string };
  }

  const customerExcerpt = (c: { id: number; account_id: string }) => ({
    account_id: c.account_id,
    id: c.account_id,
    first_name: 'Ann',
    last_name: 'Lee',
    email: `${c.account_id}@example.com`,
    stripe_customer_id: null,
    chargebee_customer_id: null,
    detail_uri: `${service.url}/v1/customers/${c.id}`,
  });

  it('records a purchase, its conversion and reward, and reads each back as v1 records', async () => {
    const { customer: adv, code } = await advocate('adv-v1');
    const buyer = (
      await service.post('/v2/customers', { account_id: 'buyer-v1', email_address: 'buyer-v1@example.com', first_name: 'Ann', last_name: 'Lee' }, v2())
    ).body.customer;
    const created = await service.post(
      '/v1/purchases',
      {
        order_id: 'V1-1',
        referral_code: code,
        payment_amount: 50,
        new_customer: 'yes',
        email_address: 'buyer@example.com',
        customer_id: buyer.id,
        products: [{ sku: 'A', quantity: 2, price: 25 }],
      },
      v1(),
    );
    expect(created.status).toBe(201);
    const purchase = created.body;
    expect(purchase).toEqual({
      id: expect.any(Number),
      order_id: 'V1-1',
      coupon_code: null,
      referral_code: code,
      date: '2026-04-01T10:00:00.000Z',
      total: 50,
      new_customer: 'yes',
      email: 'buyer@example.com',
      ip_address: null,
      referrer: null,
      products: [{ sku: 'A', quantity: 2, price: 25 }],
      customer: { ...customerExcerpt(buyer), created_at: '2026-04-01T10:00:00', recent_shares: [], recent_referral_codes: expect.any(Array) },
      // The widget the referral code attributed the purchase to.
      campaign,
      conversion_uri: expect.stringMatching(new RegExp(`^${service.url}/v1/conversions/\\d+$`)),
      detail_uri: `${service.url}/v1/purchases/${purchase.id}`,
    });
    expect((await service.get(`/v1/purchases/${purchase.id}`, v1())).body).toEqual(purchase);
    expect((await service.post('/v1/purchases', { order_id: 'V1-1' }, v1())).status).toBe(409);

    const conversion = await eventually(async () => {
      const r = await service.get(purchase.conversion_uri.slice(service.url.length), v1());
      expect(r.status).toBe(200);
      return r.body;
    });
    expect(conversion).toEqual({
      id: expect.any(Number),
      referral_code: code,
      coupon_code: null,
      channel: expect.any(String),
      campaign,
      sharer: {
        name: 'Ann Lee',
        email: 'adv-v1@example.com',
        customer: customerExcerpt(adv),
        facebook_friends_count: null,
        twitter_followers_count: null,
        birthdate: null,
      },
      purchase: { ...purchase, conversion_uri: `${service.url}/v1/conversions/${conversion.id}` },
      share_uri: null,
      reminder_email_uri: null,
      created_at: '2026-04-01T10:00:00.000Z',
      last_modified_at: expect.any(String),
      detail_uri: purchase.conversion_uri,
    });

    const rewards = await eventually(async () => {
      const r = await service.get(`/v1/rewards?customer_id=${adv.id}`, v1());
      expect(r.body.total_results_count).toBe(1);
      return r.body;
    });
    const reward = rewards.results[0];
    expect(rewards).toEqual({ offset: 0, this_page_results_count: 1, total_results_count: 1, results: [reward] });
    expect(reward).toEqual({
      id: expect.any(Number),
      // v1 has no chargebee_credit: shown as the campaign shows it.
      reward_type: 'other',
      amount: 7,
      status: 'approved',
      rejected_reasons: [],
      campaign,
      sharer: conversion.sharer,
      conversion_uri: conversion.detail_uri,
      created_at: expect.any(String),
      evaluated_at: expect.any(String),
      detail_uri: `${service.url}/v1/rewards/${reward.id}`,
    });
    expect((await service.get(`/v1/rewards/${reward.id}`, v1())).body).toEqual(reward);
    expect((await service.get('/v1/rewards?status=rejected', v1())).body.total_results_count).toBe(0);
    expect((await service.get(`/v1/conversions?customer_id=${adv.id}`, v1())).body.results).toEqual([conversion]);
  });

  it('converts a recorded purchase through POST /v1/conversions', async () => {
    const { code } = await advocate('adv-late');
    const p = (await service.post('/v1/purchases', { order_id: 'LATE-1' }, v1())).body;
    expect(p.conversion_uri).toBeNull();
    const r = await service.post('/v1/conversions', { purchase_id: p.id, referral_code: code }, v1());
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ referral_code: code, purchase: { id: p.id, order_id: 'LATE-1', conversion_uri: r.body.detail_uri } });
    expect((await service.post('/v1/conversions', { purchase_id: p.id }, v1())).status).toBe(400);
    expect((await service.post('/v1/conversions', { purchase_id: p.id, referral_code: code }, v1())).status).toBe(409);
  });

  it('takes campaign_id where v2 takes widget_id', async () => {
    const other = await createWidget(service, m, { name: 'Other campaign' });
    const r = await service.post('/v1/purchases', { order_id: 'CAMPAIGN-1', campaign_id: other.id }, v1());
    expect(r.status).toBe(201);
    expect(r.body.campaign).toMatchObject({ id: other.id, name: 'Other campaign' });
    const listed = (await service.get(`/v1/purchases?campaign_id=${other.id}`, v1())).body;
    expect(listed.results.map((p: { order_id: string }) => p.order_id)).toEqual(['CAMPAIGN-1']);
    expect((await service.get(`/v2/purchases?widget_id=${other.id}`, v2())).body.results.map((p: { order_id: string }) => p.order_id)).toEqual(['CAMPAIGN-1']);
  });

  it('names an unknown campaign a campaign in its 404s, as v2 names a widget a widget', async () => {
    const stranger = await createWidget(service, await createMerchant(service, 'Stranger shop'));
    const share = { reward_email_address: 'a@example.com', email_recipients: ['b@example.com'] };
    for (const id of [999999, stranger.id]) {
      const v1Answers = [
        await service.post('/v1/shares', { campaign_id: id, ...share }, v1()),
        await service.post('/v1/purchases', { order_id: `NOUN-${id}`, campaign_id: id }, v1()),
        await service.post('/v1/referral_codes', { campaign: { id }, email: 'noun@example.com' }, v1()),
      ];
      for (const r of v1Answers) expect([r.status, r.body]).toEqual([404, { errors: [`campaign ${id} not found`] }]);
      const v2Answers = [
        await service.post('/v2/shares', { widget_id: id, ...share }, v2()),
        await service.post('/v2/purchases', { order_id: `NOUN-${id}`, widget_id: id }, v2()),
        await service.post('/v2/personal_referral_links', { widget_id: id, email_address: 'noun@example.com' }, v2()),
      ];
      for (const r of v2Answers) expect([r.status, r.body]).toEqual([404, { errors: [`widget ${id} not found`] }]);
    }
  });

  it('pages searches by offset, with the v2 filters and v1 dates', async () => {
    for (let i = 0; i < 5; i += 1) expect((await service.post('/v1/purchases', { order_id: `PAGE-${i}` }, v1())).status).toBe(201);
    const all = (await service.get('/v1/purchases?limit=100', v1())).body;
    const page = (await service.get('/v1/purchases?offset=2&limit=3', v1())).body;
    expect(page).toEqual({ offset: 2, this_page_results_count: 3, total_results_count: all.total_results_count, results: all.results.slice(2, 5) });
    expect((await service.get('/v1/purchases?order_id=PAGE-3', v1())).body.results.map((p: { order_id: string }) => p.order_id)).toEqual(['PAGE-3']);
    expect((await service.get('/v1/purchases?to_date=2026-03-31', v1())).body.total_results_count).toBe(0);
    expect((await service.get('/v1/purchases?from_date=2026-04-01&to_date=2026-04-01', v1())).body.total_results_count).toBe(all.total_results_count);
  });

  it('creates, lists and reads email shares, and their reminder emails', async () => {
    const { customer: adv } = await advocate('sharer-v1');
    const r = await service.post(
      '/v1/shares',
      {
        campaign_id: widget.id,
        customer_id: adv.id,
        reward_email_address: 'sharer-v1@example.com',
        email_recipients: ['f1@example.com', 'f2@example.com'],
        message: 'Try it',
        send_reminder: true,
      },
      v1(),
    );
    expect(r.status).toBe(201);
    const share = r.body;
    expect(share).toEqual({
      id: expect.any(Number),
      referral_code: expect.any(String),
      message: { id: null, content: 'Try it', network: 'email' },
      campaign,
      ip_address: null,
      newsletter_opt_in: false,
      send_reminder: true,
      created_at: clock.now().toISOString(),
      detail_uri: `${service.url}/v1/shares/${share.id}`,
      sharer: {
        name: 'Ann Lee',
        email: 'sharer-v1@example.com',
        customer: customerExcerpt(adv),
        facebook_friends_count: null,
        twitter_followers_count: null,
        birthdate: null,
      },
    });
    expect((await service.get(`/v1/shares/${share.id}`, v1())).body).toEqual(share);
    expect((await service.get(`/v1/shares?customer_id=${adv.id}`, v1())).body).toEqual({
      offset: 0,
      this_page_results_count: 1,
      total_results_count: 1,
      results: [share],
    });
    expect((await service.get('/v1/shares?email_address=SHARER-V1@example.com', v1())).body.results).toEqual([share]);
    expect((await service.get(`/v1/shares?campaign_id=${widget.id}&customer_id=${adv.id}`, v1())).body.results).toEqual([share]);
    expect((await service.get(`/v1/shares?campaign_id=${widget.id + 1}`, v1())).body.total_results_count).toBe(0);
    // A v1 customer's recent shares link to the v1 share, which Basic auth can read.
    const customer = (await service.get(`/v1/customers/${adv.id}`, v1())).body;
    expect(customer.recent_shares).toEqual([share]);

    clock.advance(3 * DAY);
    const reminders = await eventually(async () => {
      const list = (await service.get('/v1/reminder_emails', v1())).body;
      expect(list.total_results_count).toBe(1);
      return list;
    });
    const reminder = reminders.results[0];
    expect(reminder).toEqual({
      id: expect.any(Number),
      referral_code: expect.any(String),
      campaign,
      created_at: clock.now().toISOString(),
      sharer: share.sharer,
      share,
      email_recipients_count: 2,
      detail_uri: `${service.url}/v1/reminder_emails/${reminder.id}`,
    });
    expect(reminder.referral_code).not.toBe(share.referral_code);
    expect((await service.get(`/v1/reminder_emails/${reminder.id}`, v1())).body).toEqual(reminder);
  });

  it('lists the coupons referral codes took', async () => {
    const bank = (await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Spring', codes: ['SPR-1', 'SPR-2'] }, service.admin)).body.coupon_bank;
    const code = await service.post(
      '/v1/referral_codes',
      { campaign: { id: widget.id }, customer: { id: 'coupon-holder', email: 'holder@example.com' }, coupon_bank_id: bank.id },
      v1(),
    );
    expect(code.status).toBe(200);
    const holder = (await service.get('/v2/customers?account_id=coupon-holder', v2())).body.results[0];
    const coupons = (await service.get('/v1/coupons', v1())).body;
    expect(coupons).toEqual({
      offset: 0,
      this_page_results_count: 1,
      total_results_count: 1,
      results: [
        {
          code: code.body.coupon_codes[0],
          coupon_bank_id: bank.id,
          referral_code: code.body.referral_code,
          campaign,
          customer: expect.objectContaining({ account_id: 'coupon-holder', detail_uri: `${service.url}/v1/customers/${holder.id}` }),
          associated_at: expect.any(String),
        },
      ],
    });
    expect((await service.get(`/v1/coupons?customer_id=${holder.id + 1000}`, v1())).body.total_results_count).toBe(0);
  });

  it('opts addresses out in a job, lists and removes them', async () => {
    const job = await service.post('/v1/email_opt_out_jobs', { email_addresses: ['Out@Example.com', 'out2@example.com'] }, v1());
    expect(job.status).toBe(202);
    expect(job.body).toMatchObject({ id: expect.any(Number), email_addresses_count: 2 });
    await eventually(async () =>
      expect((await service.get(`/v1/email_opt_out_jobs/${job.body.id}`, v1())).body).toMatchObject({ status: 'completed', opted_out_count: 2 }),
    );
    const list = (await service.get('/v1/email_opt_outs?email_address=OUT@example.com', v1())).body;
    expect(list).toEqual({
      offset: 0,
      this_page_results_count: 1,
      total_results_count: 1,
      results: [{ email_address: 'out@example.com', job_id: job.body.id, created_at: expect.any(String) }],
    });
    expect((await service.delete('/v1/email_opt_outs/out@example.com', undefined, v1())).body).toEqual({ success: true });
    expect((await service.get('/v1/email_opt_outs', v1())).body.total_results_count).toBe(1);
    expect((await service.delete('/v1/email_opt_outs/out@example.com', undefined, v1())).status).toBe(404);
  });

  it('answers bad input with a 4xx and {errors}, and asks for Basic credentials', async () => {
    const other = await createMerchant(service, 'Other shop');
    const p = (await service.post('/v1/purchases', { order_id: 'MINE' }, v1())).body;
    const cases: [string, string, unknown, number][] = [
      ['GET', '/v1/purchases?cursor=abc', undefined, 400],
      ['GET', '/v1/purchases?offset=-1', undefined, 400],
      ['GET', '/v1/shares?limit=101', undefined, 400],
      ['GET', '/v1/conversions?campaign_id=x', undefined, 400],
      // Past 2^53 an id cannot be held exactly: it would filter on a neighbour.
      ['GET', '/v1/purchases?customer_id=9007199254740993', undefined, 400],
      ['GET', '/v1/rewards?campaign_id=9007199254740993', undefined, 400],
      // v1 calls widget variants campaigns (spec §9.2): v2's name is an unknown parameter here.
      ['GET', `/v1/conversions?widget_id=${widget.id}`, undefined, 400],
      ['POST', '/v1/purchases', { order_id: 'W-1', widget_id: widget.id }, 400],
      ['POST', '/v1/purchases', { order_id: 'W-2', campaign_id: 999999 }, 404],
      ['GET', '/v1/rewards?from=2026-01-01', undefined, 400],
      ['GET', '/v1/reminder_emails?to_date=2026-02-30', undefined, 400],
      ['GET', '/v1/coupons?nope=1', undefined, 400],
      ['POST', '/v1/purchases', { order_id: 5 }, 400],
      ['POST', '/v1/purchases', { order_id: 'X-404', customer_id: 999999 }, 404],
      ['POST', '/v1/shares', { campaign_id: widget.id, reward_email_address: 'nope', email_recipients: [] }, 400],
      ['POST', '/v1/shares', { widget_id: widget.id, reward_email_address: 'a@example.com', email_recipients: ['b@example.com'] }, 400],
      ['POST', '/v1/email_opt_out_jobs', { email_addresses: ['not-an-address'] }, 400],
      ['GET', '/v1/purchases/abc', undefined, 404],
      ['GET', '/v1/shares/999999', undefined, 404],
      ['GET', '/v1/email_opt_out_jobs/999999', undefined, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const r = await service.request(method, path, { body, auth: m.basic });
      expect([path, r.status]).toEqual([path, status]);
      expect(Array.isArray(r.body.errors)).toBe(true);
    }
    // Another merchant's records are not found; a v2 token is no v1 credential.
    expect((await service.get(`/v1/purchases/${p.id}`, { auth: other.basic })).status).toBe(404);
    expect((await service.get('/v1/purchases', { auth: other.basic })).body.total_results_count).toBe(0);
    for (const path of ['/v1/purchases', '/v1/shares', '/v1/conversions', '/v1/rewards', '/v1/reminder_emails', '/v1/coupons', '/v1/email_opt_outs']) {
      const r = await service.get(path, v2());
      expect([path, r.status, r.headers.get('www-authenticate')]).toEqual([path, 401, 'Basic realm="referral-api v1"']);
    }
  });
});
