import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { recordCommits } from '../support/commits.js';
import { Service, TestMerchant, createMerchant, createWidget } from '../support/service.js';

describe('purchases, attribution, conversions and rewards', () => {
  let service: Service;
  let m: TestMerchant;
  let widget: { id: number };
  beforeAll(async () => {
    service = await Service.start();
    m = await createMerchant(service);
    widget = await createWidget(service, m);
  });
  afterAll(async () => {
    await service.stop();
  });
  const v2 = () => ({ auth: m.bearer });
  let orders = 0;
  const order = () => `ORD-${++orders}`;

  async function advocate(accountId: string, w = widget, email = `${accountId}@example.com`) {
    const customer = (await service.post('/v2/customers', { account_id: accountId, email_address: email }, v2())).body.customer;
    const link = (await service.post('/v2/personal_referral_links', { widget_id: w.id, customer_id: customer.id }, v2())).body.referral_link;
    return { customer, code: link.code as string };
  }

  async function purchase(body: Record<string, unknown>) {
    const r = await service.post('/v2/purchases', { order_id: order(), ...body }, v2());
    expect(r.status).toBe(201);
    return r.body.purchase;
  }

  async function conversionsOf(auth = v2()) {
    return (await service.get('/v2/conversions?limit=100', auth)).body.results;
  }

  it('turns a referral purchase into a conversion and an approved reward', async () => {
    const { customer: adv, code } = await advocate('adv-1');
    const friend = (await service.post('/v2/customers', { account_id: 'friend-1', email_address: 'friend1@example.com' }, v2())).body.customer;
    const p = await purchase({
      referral_code: code,
      payment_amount: 129.5,
      new_customer: 'yes',
      email_address: 'friend1@example.com',
      customer_id: friend.id,
      ip_address: '198.51.100.7',
      referrer: 'https://blog.example/post',
      products: [{ sku: 'TENT', quantity: 1, price: 129.5 }],
    });
    expect(p).toEqual({
      id: expect.any(Number),
      order_id: p.order_id,
      payment_amount: 129.5,
      new_customer: true,
      ip_address: '198.51.100.7',
      referrer: 'https://blog.example/post',
      widget: `${service.url}/v2/widgets/${widget.id}`,
      email_address: 'friend1@example.com',
      customer: `${service.url}/v2/customers/${friend.id}`,
      products: [{ sku: 'TENT', quantity: 1, price: 129.5 }],
      created_at: expect.any(String),
    });
    const conversions = (await service.get(`/v2/conversions?customer_id=${adv.id}`, v2())).body.results;
    expect(conversions).toEqual([
      {
        id: expect.any(Number),
        widget: `${service.url}/v2/widgets/${widget.id}`,
        customer: `${service.url}/v2/customers/${adv.id}`,
        purchase: `${service.url}/v2/purchases/${p.id}`,
        advocate_email_address: 'adv-1@example.com',
        channel: 'personal_url',
        source: `${service.url}/v2/referral_links/${code}`,
        created_at: p.created_at,
        last_modified_at: expect.any(String),
      },
    ]);
    const rewards = (await service.get(`/v2/rewards?customer_id=${adv.id}`, v2())).body.results;
    expect(rewards).toEqual([
      {
        id: expect.any(Number),
        conversion: `${service.url}/v2/conversions/${conversions[0].id}`,
        widget: `${service.url}/v2/widgets/${widget.id}`,
        customer: `${service.url}/v2/customers/${adv.id}`,
        advocate_email_address: 'adv-1@example.com',
        reward_type: 'fixed_cash',
        amount: 10,
        status: 'approved',
        rejected_reasons: [],
        created_at: expect.any(String),
        evaluated_at: expect.any(String),
      },
    ]);
    expect((await service.get(`/v2/rewards/${rewards[0].id}`, v2())).body.reward).toEqual(rewards[0]);
    expect((await service.get(`/v2/conversions/${conversions[0].id}`, v2())).body.conversion).toEqual(conversions[0]);
    const buyer = (await service.get(`/v2/customers/${friend.id}`, v2())).body.customer;
    expect(buyer.first_purchase_date).toBe(p.created_at);
    expect(buyer.last_purchase_date).toBe(p.created_at);
    // The purchase dates are part of the customer: its last modification moves with them.
    expect(buyer.last_modified_at).toBe(p.created_at);
    expect((await service.get(`/v2/purchases?order_id=${p.order_id}`, v2())).body.results).toEqual([p]);
  });

  it('answers new_customer as true, false or "unknown" and shows coupon_code only when used', async () => {
    expect((await purchase({ new_customer: 'no' })).new_customer).toBe(false);
    const unknown = await purchase({});
    expect(unknown.new_customer).toBe('unknown');
    expect(unknown).not.toHaveProperty('coupon_code');
  });

  it('attributes through a coupon associated by POST /v1/referral_codes, and prefers the referral code', async () => {
    await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Friends', codes: ['FRIEND-1', 'FRIEND-2'] }, service.admin);
    const viaCoupon = await service.post(
      '/v1/referral_codes',
      { campaign: { id: widget.id }, customer: { id: 'coupon-adv', email: 'ca@example.com' }, coupon_code: 'FRIEND-1' },
      { auth: m.basic },
    );
    const p = await purchase({ coupon_code: 'FRIEND-1' });
    expect(p.coupon_code).toBe('FRIEND-1');
    const conversion = (await conversionsOf()).find((c: { purchase: string }) => c.purchase.endsWith(`/${p.id}`));
    expect(conversion.source).toBe(`${service.url}/v2/referral_links/${viaCoupon.body.referral_code}`);
    expect(conversion.advocate_email_address).toBe('ca@example.com');
    const other = await advocate('precedence');
    const both = await purchase({ coupon_code: 'FRIEND-1', referral_code: other.code });
    const bothConversion = (await conversionsOf()).find((c: { purchase: string }) => c.purchase.endsWith(`/${both.id}`));
    expect(bothConversion.source).toBe(`${service.url}/v2/referral_links/${other.code}`);
    // A referral code that attributes to nobody does not stop the coupon from trying.
    const stale = await purchase({ coupon_code: 'FRIEND-1', referral_code: 'nosuch99' });
    const staleConversion = (await conversionsOf()).find((c: { purchase: string }) => c.purchase.endsWith(`/${stale.id}`));
    expect(staleConversion?.source).toBe(`${service.url}/v2/referral_links/${viaCoupon.body.referral_code}`);
    const late = await purchase({});
    const made = await service.post('/v2/conversions', { purchase_id: late.id, referral_code: 'nosuch99', coupon_code: 'FRIEND-1' }, v2());
    expect(made.status).toBe(201);
    expect(made.body.conversion.source).toBe(`${service.url}/v2/referral_links/${viaCoupon.body.referral_code}`);
  });

  it('attributes a referral or coupon code typed in another case (or with spaces around it) to its advocate', async () => {
    const c = (await service.post('/v2/customers', { account_id: 'cased-adv', email_address: 'cased-adv@example.com' }, v2())).body.customer;
    expect(
      (await service.post(`/admin/merchants/${m.id}/vanity_links`, { widget_id: widget.id, code: 'Case-Vanity', customer_id: c.id }, service.admin)).status,
    ).toBe(201);
    const bySource = async (p: { id: number }) => (await conversionsOf()).find((x: { purchase: string }) => x.purchase.endsWith(`/${p.id}`));
    const upper = await bySource(await purchase({ referral_code: 'CASE-VANITY' }));
    expect(upper).toMatchObject({
      source: `${service.url}/v2/referral_links/Case-Vanity`,
      channel: 'personal_url',
      customer: `${service.url}/v2/customers/${c.id}`,
    });
    // v1 shows the codes: the link's own, on the conversion and on the purchase (its answer too).
    expect((await service.get(`/v1/conversions/${upper.id}`, { auth: m.basic })).body.referral_code).toBe('Case-Vanity');
    const padded = await service.post('/v1/purchases', { order_id: 'cased-v1', referral_code: ' case-VANITY ' }, { auth: m.basic });
    expect([padded.status, padded.body.referral_code]).toEqual([201, 'Case-Vanity']);
    expect(
      (await service.get('/v1/purchases?order_id=cased-v1', { auth: m.basic })).body.results.map((p: { referral_code: string }) => p.referral_code),
    ).toEqual(['Case-Vanity']);
    const late = await purchase({});
    const made = await service.post('/v2/conversions', { purchase_id: late.id, referral_code: 'case-vanity' }, v2());
    expect([made.status, made.body.conversion?.source]).toEqual([201, `${service.url}/v2/referral_links/Case-Vanity`]);
    await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Cased', codes: ['CASED-10'] }, service.admin);
    const viaCoupon = await service.post(
      '/v1/referral_codes',
      { campaign: { id: widget.id }, customer: { id: 'cased-coupon' }, coupon_code: 'CASED-10' },
      { auth: m.basic },
    );
    for (const typed of ['cased-10', ' Cased-10 ']) {
      const p = await purchase({ coupon_code: typed });
      expect(p.coupon_code).toBe('CASED-10');
      const conversion = await bySource(p);
      expect(conversion.source).toBe(`${service.url}/v2/referral_links/${viaCoupon.body.referral_code}`);
      expect((await service.get(`/v1/conversions/${conversion.id}`, { auth: m.basic })).body.coupon_code).toBe('CASED-10');
    }
  });

  it('records a purchase with an unknown, blacklisted or unassociated code without a conversion, keeping the reason', async () => {
    const { code } = await advocate('blacklisted-adv');
    await service.put(`/admin/merchants/${m.id}/referral_links/${code}/blacklist`, undefined, service.admin);
    const cases: [Record<string, unknown>, string][] = [
      [{ referral_code: 'nosuch99' }, 'unknown_referral_code'],
      [{ referral_code: code }, 'blacklisted_referral_code'],
      [{ coupon_code: 'NEVER-UPLOADED' }, 'unknown_coupon_code'],
      [{ coupon_code: 'FRIEND-2' }, 'coupon_not_associated'],
      // Neither attributes: the referral code's reason is kept.
      [{ referral_code: 'nosuch99', coupon_code: 'FRIEND-2' }, 'unknown_referral_code'],
    ];
    const store = service.app.get<EventStore>(EVENT_STORE);
    for (const [body, reason] of cases) {
      const p = await purchase(body);
      const events = (await store.readAll({ maxCount: 100_000 })).filter((e) => (e.data as { purchaseId?: number }).purchaseId === p.id);
      expect(events.map((e) => e.type)).toEqual(['PurchaseRecorded', 'AttributionFailed']);
      expect((events[1].data as { reason: string }).reason).toBe(reason);
      expect((await conversionsOf()).some((c: { purchase: string }) => c.purchase.endsWith(`/${p.id}`))).toBe(false);
    }
  });

  it('answers 409 for a used order id, also when 20 requests race, and creates nothing more', async () => {
    const { code } = await advocate('racing-adv');
    const first = await service.post('/v2/purchases', { order_id: 'DUP-1', referral_code: code }, v2());
    expect(first.status).toBe(201);
    const again = await service.post('/v2/purchases', { order_id: 'DUP-1', referral_code: code }, v2());
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatch(/order_id DUP-1/);
    const race = await Promise.all(Array.from({ length: 20 }, () => service.post('/v2/purchases', { order_id: 'RACE-1', referral_code: code }, v2())));
    expect(race.filter((r) => r.status === 201)).toHaveLength(1);
    expect(race.filter((r) => r.status === 409)).toHaveLength(19);
    expect((await service.get('/v2/purchases?order_id=RACE-1', v2())).body.results_count).toBe(1);
    const raceId = race.find((r) => r.status === 201)!.body.purchase.id;
    expect((await conversionsOf()).filter((c: { purchase: string }) => c.purchase.endsWith(`/${raceId}`))).toHaveLength(1);
  });

  it('POST /v2/conversions converts an existing purchase once: 404, 400 and 409 as the rules say', async () => {
    const { code } = await advocate('explicit-adv');
    const p = await purchase({});
    expect((await service.post('/v2/conversions', { purchase_id: 987654321, referral_code: code }, v2())).status).toBe(404);
    expect((await service.post('/v2/conversions', { purchase_id: p.id }, v2())).status).toBe(400);
    expect((await service.post('/v2/conversions', { purchase_id: p.id, referral_code: 'nosuch99' }, v2())).status).toBe(400);
    const made = await service.post('/v2/conversions', { purchase_id: p.id, referral_code: code, coupon_code: 'NEVER' }, v2());
    expect(made.status).toBe(201);
    expect(made.body.conversion).toMatchObject({ purchase: `${service.url}/v2/purchases/${p.id}`, channel: 'personal_url' });
    // The reward is decided with the conversion and readable as soon as it is answered.
    const rewards = (await service.get('/v2/rewards?limit=100', v2())).body.results as { conversion: string; status: string }[];
    expect(rewards.filter((r) => r.conversion === `${service.url}/v2/conversions/${made.body.conversion.id}`)).toEqual([
      expect.objectContaining({ status: expect.any(String) }),
    ]);
    expect((await service.post('/v2/conversions', { purchase_id: p.id, referral_code: code }, v2())).status).toBe(409);
    // Already converted: 409 whatever the code, also one that would attribute nothing.
    expect((await service.post('/v2/conversions', { purchase_id: p.id, referral_code: 'nosuch99' }, v2())).status).toBe(409);
    const q = await purchase({});
    const race = await Promise.all(Array.from({ length: 10 }, () => service.post('/v2/conversions', { purchase_id: q.id, referral_code: code }, v2())));
    expect(race.filter((r) => r.status === 201)).toHaveLength(1);
    expect(race.filter((r) => r.status === 409)).toHaveLength(9);
    const stranger = await createMerchant(service);
    expect((await service.post('/v2/conversions', { purchase_id: p.id, referral_code: code }, { auth: stranger.bearer })).status).toBe(404);
  });

  it('channel and source follow the code: a share gives email and the share link', async () => {
    const share = (
      await service.post('/v2/shares', { widget_id: widget.id, reward_email_address: 'sharer@example.com', email_recipients: ['f@example.com'] }, v2())
    ).body.share;
    const code = share.referral_link.split('/').pop();
    const p = await purchase({ referral_code: code });
    const c = (await conversionsOf()).find((x: { purchase: string }) => x.purchase.endsWith(`/${p.id}`));
    expect(c).toMatchObject({ channel: 'email', source: `${service.url}/v2/shares/${share.id}`, advocate_email_address: 'sharer@example.com', customer: null });
    const byEmail = await service.get('/v2/conversions?email_address=SHARER@example.com', v2());
    expect(byEmail.body.results.map((x: { id: number }) => x.id)).toEqual([c.id]);
    const padded = await service.get('/v2/conversions?email_address=%20sharer@example.com%20', v2());
    expect(padded.body.results.map((x: { id: number }) => x.id)).toEqual([c.id]);
  });

  describe('reward rules', () => {
    async function rewardFor(body: Record<string, unknown>, code: string) {
      const p = await purchase({ referral_code: code, ...body });
      const c = (await conversionsOf()).find((x: { purchase: string }) => x.purchase.endsWith(`/${p.id}`));
      const rewards = (await service.get('/v2/rewards?limit=100', v2())).body.results;
      return rewards.find((r: { conversion: string }) => r.conversion.endsWith(`/${c.id}`));
    }

    it('evaluates nothing on a widget without a reward', async () => {
      const plain = await createWidget(service, m, { name: 'No reward', reward_type: null, reward_amount: null });
      const { code } = await advocate('no-reward-adv', plain);
      expect(await rewardFor({}, code)).toBeUndefined();
    });

    it('rejects a self-referral and an advocate buying with their own email (defaults on)', async () => {
      const { customer, code } = await advocate('self-adv');
      expect((await rewardFor({ customer_id: customer.id }, code)).rejected_reasons).toEqual(['self_referral', 'same_email']);
      expect(await rewardFor({ email_address: 'SELF-ADV@example.com' }, code)).toMatchObject({ status: 'rejected', rejected_reasons: ['same_email'] });
    });

    it("checks the advocate's current email too: one added after their link was made still catches a self-referral", async () => {
      const customer = (await service.post('/v2/customers', { account_id: 'no-email-yet' }, v2())).body.customer;
      const code = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, v2())).body.referral_link.code;
      expect((await service.post('/v2/customers', { account_id: 'no-email-yet', email_address: 'added-later@example.com' }, v2())).status).toBe(200);
      expect(await rewardFor({ email_address: 'Added-Later@example.com' }, code)).toMatchObject({ status: 'rejected', rejected_reasons: ['same_email'] });
    });

    it('rejects similar emails and same IP when enabled, and enforces new-customers-only and a minimum', async () => {
      const strict = await createWidget(service, m, {
        name: 'Strict',
        reward_criteria: { new_customers_only: true, minimum_purchase_amount: 50 },
        fraud_checks: { similar_email: true, same_ip: true },
      });
      const adv = (await service.post('/v2/customers', { account_id: 'strict-adv', email_address: 'strict.adv@gmail.com' }, v2())).body.customer;
      const link = (await service.post('/v2/personal_referral_links', { widget_id: strict.id, customer_id: adv.id }, v2())).body.referral_link; // created from 127.0.0.1
      const ok = { new_customer: 'yes', payment_amount: 60, email_address: 'someone@example.com' };
      expect((await rewardFor(ok, link.code)).status).toBe('approved');
      expect((await rewardFor({ ...ok, email_address: 'StrictAdv+x@googlemail.com' }, link.code)).rejected_reasons).toEqual(['similar_email']);
      expect((await rewardFor({ ...ok, new_customer: 'unknown' }, link.code)).rejected_reasons).toEqual(['not_new_customer']);
      expect((await rewardFor({ ...ok, payment_amount: 49.99 }, link.code)).rejected_reasons).toEqual(['below_minimum_purchase_amount']);
      expect((await rewardFor({ ...ok, ip_address: '127.0.0.1' }, link.code)).rejected_reasons).toEqual(['same_ip']);
    });

    it('caps rewards per advocate, also when conversions race', async () => {
      const capped = await createWidget(service, m, { name: 'Capped', reward_criteria: { max_rewards_per_advocate: 2 } });
      const { customer, code } = await advocate('capped-adv', capped);
      await Promise.all(Array.from({ length: 6 }, () => purchase({ referral_code: code })));
      const rewards = (await service.get(`/v2/rewards?customer_id=${customer.id}&limit=100`, v2())).body.results;
      expect(rewards).toHaveLength(6);
      expect(rewards.filter((r: { status: string }) => r.status === 'approved')).toHaveLength(2);
      expect(rewards.filter((r: { rejected_reasons: string[] }) => r.rejected_reasons.includes('advocate_reward_cap_reached'))).toHaveLength(4);
      expect((await service.get(`/v2/rewards?customer_id=${customer.id}&status=approved`, v2())).body.results_count).toBe(2);
    });

    it('gives a percent_discount reward the percentage itself as its amount, and an amount cap adds the percentages (as documented)', async () => {
      const percent = await createWidget(service, m, {
        name: 'Percent',
        reward_type: 'percent_discount',
        reward_amount: 15,
        reward_criteria: { max_reward_amount_per_advocate: 30 },
      });
      const { code } = await advocate('percent-adv', percent);
      const first = await rewardFor({ payment_amount: 200 }, code);
      expect(first).toMatchObject({ reward_type: 'percent_discount', amount: 15, status: 'approved' });
      expect(await rewardFor({ payment_amount: 10 }, code)).toMatchObject({ amount: 15, status: 'approved' });
      expect(await rewardFor({ payment_amount: 1000 }, code)).toMatchObject({
        amount: 15,
        status: 'rejected',
        rejected_reasons: ['advocate_reward_cap_reached'],
      });
    });

    it('rewards through an archived, unpublished, inactive widget as before, and makes new links on it (as documented)', async () => {
      const retired = await createWidget(service, m, { name: 'Retired', published: true, reward_criteria: { max_rewards_per_advocate: 5 } });
      const { code } = await advocate('retired-adv', retired);
      const changed = await service.patch(`/admin/merchants/${m.id}/widgets/${retired.id}`, { archived: true, published: false, active: false }, service.admin);
      expect(changed.body.widget).toMatchObject({ archived: true, published: false, active: false });
      expect(await rewardFor({}, code)).toMatchObject({ status: 'approved', amount: 10 });
      const late = await advocate('retired-late-adv', retired);
      expect(late.code).toEqual(expect.any(String));
      expect(await rewardFor({}, late.code)).toMatchObject({ status: 'approved' });
    });

    it('answers 201 to every purchase when many race on one advocate (no 409 for a recorded purchase)', async () => {
      const capped = await createWidget(service, m, { name: 'Hot advocate', reward_criteria: { max_rewards_per_advocate: 1000 } });
      const { customer, code } = await advocate('hot-adv', capped);
      const replies = await Promise.all(Array.from({ length: 40 }, () => service.post('/v2/purchases', { order_id: order(), referral_code: code }, v2())));
      expect(replies.map((r) => r.status).filter((s) => s !== 201)).toEqual([]);
      const rewards = (await service.get(`/v2/rewards?customer_id=${customer.id}&limit=100`, v2())).body.results;
      expect(rewards).toHaveLength(40);
      expect(rewards.every((r: { status: string }) => r.status === 'approved')).toBe(true);
    });

    it('lets an admin approve a rejected reward, keeping who and why, but not reject an approved one', async () => {
      const { customer, code } = await advocate('manual-adv');
      const rejected = await rewardFor({ customer_id: customer.id }, code);
      expect(rejected.status).toBe('rejected');
      // The approval and its count towards the caps are one commit: a crash cannot keep one without the other.
      const { commits, restore } = recordCommits(service.app.get<EventStore>(EVENT_STORE));
      let approved;
      try {
        approved = await service.post(`/admin/merchants/${m.id}/rewards/${rejected.id}/approve`, { by: 'ops@shop.example', reason: 'goodwill' }, service.admin);
      } finally {
        restore();
      }
      expect(
        commits.filter((types) => types.some((t) => t === 'RewardManuallyApproved' || t === 'AdvocateRewardCounted')).map((types) => [...types].sort()),
      ).toEqual([['AdvocateRewardCounted', 'RewardManuallyApproved']]);
      expect(approved.status).toBe(200);
      expect(approved.body.reward).toMatchObject({ status: 'approved', decided_by: 'ops@shop.example', decision_reason: 'goodwill', rejected_reasons: [] });
      expect((await service.post(`/admin/merchants/${m.id}/rewards/${rejected.id}/reject`, { by: 'ops' }, service.admin)).status).toBe(409);
      expect((await service.post(`/admin/merchants/${m.id}/rewards/${rejected.id}/approve`, {}, service.admin)).status).toBe(400);
      expect((await service.post(`/admin/merchants/${m.id}/rewards/424242/approve`, { by: 'x' }, service.admin)).status).toBe(404);
    });

    it('answers every one of several approvals sent at once with the approved reward, not the rejected one it was', async () => {
      const strict = await createWidget(service, m, { name: 'Approved at once', reward_criteria: { new_customers_only: true } });
      const { customer, code } = await advocate('approved-at-once', strict);
      for (let round = 0; round < 10; round += 1) {
        await purchase({ referral_code: code, new_customer: 'no' });
        const rejected = (await service.get(`/v2/rewards?customer_id=${customer.id}&status=rejected`, v2())).body.results[0];
        expect(rejected.rejected_reasons).toEqual(['not_new_customer']);
        // Other writes at the same time leave the read models more to apply before the winner's
        // approval: a losing request (it decides nothing) that did not wait for it answered with
        // the reward still rejected, in nearly every round.
        const others = Array.from({ length: 20 }, (_, i) => service.post('/v2/customers', { account_id: `at-once-${round}-${i}` }, v2()));
        const answers = await Promise.all(
          Array.from({ length: 5 }, (_, i) => service.post(`/admin/merchants/${m.id}/rewards/${rejected.id}/approve`, { by: `ops${i}` }, service.admin)),
        );
        expect((await Promise.all(others)).map((r) => r.status).filter((status) => status !== 201)).toEqual([]);
        const shown = answers.map((a) => [a.status, a.body.reward.status, a.body.reward.decided_by]);
        const winner = shown.find(([, status, by]) => status === 'approved' && by !== null)?.[2];
        expect({ round, shown }).toEqual({ round, shown: Array.from({ length: 5 }, () => [200, 'approved', winner]) });
      }
    });
  });

  it('scopes conversions and rewards of a customer token to that advocate', async () => {
    const a = await advocate('token-adv-a');
    const b = await advocate('token-adv-b');
    await purchase({ referral_code: a.code });
    await purchase({ referral_code: b.code });
    const token = `Bearer ${(await service.post('/v2/tokens/customer', { customer_id: a.customer.id }, v2())).body.token}`;
    const mine = (await service.get('/v2/conversions', { auth: token })).body.results;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((c: { customer: string }) => c.customer === `${service.url}/v2/customers/${a.customer.id}`)).toBe(true);
    const rewards = (await service.get('/v2/rewards', { auth: token })).body.results;
    expect(rewards.every((r: { customer: string }) => r.customer === `${service.url}/v2/customers/${a.customer.id}`)).toBe(true);
    expect((await service.get(`/v2/conversions?customer_id=${b.customer.id}`, { auth: token })).status).toBe(403);
    expect((await service.post('/v2/purchases', { order_id: 'x' }, { auth: token })).status).toBe(403);
    expect((await service.get('/v2/purchases', { auth: token })).status).toBe(403);
  });

  it('validates purchase input', async () => {
    for (const body of [
      {},
      { order_id: '' },
      { order_id: 5 },
      { order_id: 'v1', payment_amount: '10' },
      { order_id: 'v2', new_customer: 'maybe' },
      { order_id: 'v3', products: [{ sku: 'x', quantity: 1.5, price: 1 }] },
      { order_id: 'v4', products: {} },
      { order_id: 'v5', ip_address: '999.1.1.1' },
      { order_id: 'v6', payment_amount: -1 },
    ]) {
      const r = await service.post('/v2/purchases', body, v2());
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    // A number a number check refuses is a bad value (invalid), a string where a number belongs the wrong type.
    const codes = async (body: Record<string, unknown>) =>
      (await service.post('/v2/purchases', body, v2())).body.errors.map((e: { property: string; code: string }) => `${e.property}:${e.code}`);
    expect(await codes({ order_id: 'v8', payment_amount: 1.23456 })).toEqual(['payment_amount:invalid']);
    expect(await codes({ order_id: 'v8', payment_amount: '10' })).toEqual(['payment_amount:wrong_type']);
    // Places are counted however JSON.parse reads the number: 6e-7 was a 500, 1.5e-7 taken as one place.
    for (const amount of [0.0000006, 0.00000015, 1.0000001]) {
      expect(await codes({ order_id: 'v8', payment_amount: amount, products: [{ sku: 'x', quantity: 1, price: amount }] })).toEqual([
        'payment_amount:invalid',
        'products.0.price:invalid',
      ]);
    }
    expect(
      (await service.post('/v2/purchases', { order_id: 'v9', payment_amount: 1e21, products: [{ sku: 'x', quantity: 1, price: 0.0001 }] }, v2())).status,
    ).toBe(201);
    // An enum of strings given another JSON type is the wrong type; a string it does not list, a bad value.
    expect(await codes({ order_id: 'v8', new_customer: true })).toEqual(['new_customer:wrong_type']);
    expect(await codes({ order_id: 'v8', new_customer: 'maybe' })).toEqual(['new_customer:invalid']);
    expect(await codes({ order_id: 'v8', products: [{ sku: 'x', quantity: 1.5, price: 1 }] })).toEqual(['products.0.quantity:invalid']);
    expect((await service.post('/v2/purchases', { order_id: 'v7', customer_id: 987654321 }, v2())).status).toBe(404);
    expect((await service.get('/v2/purchases?order_id=v1', v2())).body.results_count).toBe(0);
  });
});
