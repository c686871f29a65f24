/**
 * The browser routes that act (issue 29, docs/embedding.md): a signed-in customer's personal link
 * and shares (X-Customer-Token), a referral code's lookup with the merchant's attribution_days, and
 * a purchase whose order the merchant's server signed (an HS256 JWT with its secret key): each
 * through the v2 route's own use case, refused alike for forged, replayed or foreign credentials,
 * readable by the allowed page, and throttled per address.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, UnsecuredJWT } from 'jose';
import { ManualClock } from '../../src/platform/clock.js';
import { createMerchant, createWidget, RequestOptions, Service, TestMerchant, serviceForSuite } from '../support/service.js';

const SHOP = 'https://shop.example';
const OTHER_SHOP = 'https://other-shop.example';
const MINUTE = 60_000;

type Merchant = TestMerchant & { pk: string };

async function withKey(service: Service, m: TestMerchant, origin: string): Promise<Merchant> {
  const patched = await service.patch(`/admin/merchants/${m.id}`, { allowed_origins: [origin] }, service.admin);
  expect(patched.status).toBe(200);
  return { ...m, pk: patched.body.merchant.publishable_key };
}

/** A customer of `m` (with an address unless `email` is null) and a customer token for it. */
async function customerOf(
  service: Service,
  m: TestMerchant,
  accountId: string,
  email: string | null = `${accountId}@example.com`,
): Promise<{ id: number; token: string }> {
  const created = await service.post('/v2/customers', { account_id: accountId, ...(email ? { email_address: email } : {}) }, { auth: m.bearer });
  expect(created.status).toBeLessThan(300);
  const token = await service.post('/v2/tokens/customer', { customer_id: created.body.customer.id }, { auth: m.bearer });
  expect(token.status).toBe(200);
  return { id: created.body.customer.id, token: token.body.token };
}

/** A purchase token as a merchant's server makes one (docs/embedding.md). */
function purchaseToken(claims: Record<string, unknown>, secretKey: string, expiresAt: Date, alg = 'HS256'): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg })
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(new TextEncoder().encode(secretKey));
}

describe('browser routes for a customer, referral codes and purchases', () => {
  const clock = new ManualClock(new Date('2026-11-29T10:00:00.000Z'));
  let service: Service;
  let a: Merchant;
  let b: Merchant;
  let widget: { id: number };
  let hidden: { id: number };
  let bWidget: { id: number };
  let ann: { id: number; token: string };
  let purl: string;

  const page = (m: Merchant, customerToken?: string, more: RequestOptions = {}): RequestOptions => ({
    ...more,
    headers: {
      'x-publishable-key': m.pk,
      origin: m === b ? OTHER_SHOP : SHOP,
      ...(customerToken ? { 'x-customer-token': customerToken } : {}),
      ...more.headers,
    },
  });
  const inAnHour = () => new Date(clock.now().getTime() + 60 * MINUTE);
  const outbox = async (m: TestMerchant): Promise<{ to: string; text: string }[]> =>
    (await service.get(`/admin/merchants/${m.id}/outbox?limit=100`, service.admin)).body.results;
  const purchasesOf = async (m: TestMerchant, orderId: string) =>
    (await service.get(`/v2/purchases?order_id=${encodeURIComponent(orderId)}`, { auth: m.bearer })).body.results as unknown[];

  beforeAll(async () => {
    service = await Service.start({
      clock,
      env: {
        BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS: '100000',
        BROWSER_SHARES_PER_MINUTE_PER_ADDRESS: '100000',
        BROWSER_PURCHASES_PER_MINUTE_PER_ADDRESS: '100000',
      },
    });
    a = await withKey(service, await createMerchant(service, 'Shop A'), SHOP);
    b = await withKey(service, await createMerchant(service, 'Shop B'), OTHER_SHOP);
    widget = await createWidget(service, a, { name: 'Give $10', published: true });
    hidden = await createWidget(service, a, { name: 'Not published' });
    bWidget = await createWidget(service, b, { name: 'B only', published: true });
    ann = await customerOf(service, a, 'ann');
  }, 30_000);
  afterAll(async () => {
    await service.stop();
  });

  it("answers the customer's personal link, the same code every time, with its trackable URL, readable by the page", async () => {
    const first = await service.post('/browser/v1/referral_links', { widget_id: widget.id }, page(a, ann.token));
    expect(first.status).toBe(201);
    expect(first.headers.get('access-control-allow-origin')).toBe(SHOP);
    purl = first.body.referral_link.code;
    expect(first.body).toEqual({ referral_link: { code: expect.any(String), url: `${service.url}/l/${purl}`, widget_id: widget.id } });
    const again = await service.post('/browser/v1/referral_links', { widget_id: widget.id }, page(a, ann.token));
    expect([again.status, again.body.referral_link.code]).toEqual([201, purl]);
    // The same link POST /v2/personal_referral_links gives the customer.
    const v2 = await service.post('/v2/personal_referral_links', { widget_id: widget.id }, { auth: `Bearer ${ann.token}` });
    expect(v2.body.referral_link.trackable_link).toBe(`${service.url}/l/${purl}`);
    for (const widget_id of [hidden.id, bWidget.id, 999_999_999]) {
      const refused = await service.post('/browser/v1/referral_links', { widget_id }, page(a, ann.token));
      expect({ widget_id, status: refused.status, cors: refused.headers.get('access-control-allow-origin') }).toEqual({ widget_id, status: 404, cors: SHOP });
    }
  });

  it("refuses a missing, expired or another merchant's customer token alike, and a server credential in X-Customer-Token without echoing it", async () => {
    const bea = await customerOf(service, b, 'bea');
    const cases: [string | undefined, RegExp][] = [
      [undefined, /missing customer token/],
      ['ct_garbage.xyz', /customer token expired or is invalid: the page should fetch a new one from its server/],
      [bea.token, /customer token expired or is invalid: the page should fetch a new one from its server/],
      [a.token, /must never be put in a page/],
      [a.secretKey, /must never be put in a page/],
    ];
    for (const [token, message] of cases) {
      const reply = await service.post('/browser/v1/shares', { widget_id: widget.id, channel: 'facebook' }, page(a, token));
      expect({ token: token?.slice(0, 3), status: reply.status, errors: reply.body.errors }).toEqual({
        token: token?.slice(0, 3),
        status: 401,
        errors: [expect.stringMatching(message)],
      });
      expect(reply.headers.get('access-control-allow-origin')).toBe(SHOP);
      if (token) expect(reply.text).not.toContain(token);
    }
    // B's token with B's own key works: the refusal above was about the merchant.
    expect((await service.post('/browser/v1/referral_links', { widget_id: bWidget.id }, page(b, bea.token))).status).toBe(201);
    // Expired: customer tokens live 10 minutes.
    const cy = await customerOf(service, a, 'cy');
    expect((await service.post('/browser/v1/referral_links', { widget_id: widget.id }, page(a, cy.token))).status).toBe(201);
    clock.advance(11 * MINUTE);
    const expired = await service.post('/browser/v1/referral_links', { widget_id: widget.id }, page(a, cy.token));
    expect([expired.status, expired.body.errors]).toEqual([401, [expect.stringMatching(/customer token expired or is invalid/)]]);
    ann = await customerOf(service, a, 'ann');
    // The preflight lets the page send the header.
    const preflight = await service.request('OPTIONS', '/browser/v1/shares', {
      headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-publishable-key,x-customer-token' },
    });
    expect([preflight.status, preflight.headers.get('access-control-allow-headers')]).toEqual([204, 'Content-Type, X-Publishable-Key, X-Customer-Token']);
  });

  it('gives each social share a new code of its own, sends nothing, and lists it with its channel', async () => {
    const before = (await outbox(a)).length;
    const first = await service.post('/browser/v1/shares', { widget_id: widget.id, channel: 'facebook' }, page(a, ann.token));
    const second = await service.post('/browser/v1/shares', { widget_id: widget.id, channel: 'facebook' }, page(a, ann.token));
    const tweet = await service.post('/browser/v1/shares', { widget_id: widget.id, channel: 'twitter', newsletter_opt_in: true }, page(a, ann.token));
    for (const reply of [first, second, tweet]) {
      expect(reply.status).toBe(201);
      expect(reply.headers.get('access-control-allow-origin')).toBe(SHOP);
      expect(reply.body.share).toEqual({
        id: expect.any(Number),
        widget_id: widget.id,
        channel: expect.any(String),
        referral_code: expect.any(String),
        url: `${service.url}/l/${reply.body.share.referral_code}`,
      });
    }
    const codes = [first, second, tweet].map((r) => r.body.share.referral_code);
    expect(new Set([...codes, purl]).size).toBe(4);
    const listed = (await service.get(`/v2/shares?customer_id=${ann.id}&limit=100`, { auth: a.bearer })).body.results as {
      id: number;
      channel: string;
      referral_link: string;
      reward_email_address: string;
      ip_address: string;
    }[];
    const byId = new Map(listed.map((s) => [s.id, s]));
    expect(byId.get(first.body.share.id)).toMatchObject({
      channel: 'facebook',
      reward_email_address: 'ann@example.com',
      ip_address: '127.0.0.1',
      referral_link: expect.stringMatching(new RegExp(`/v2/referral_links/${codes[0]}$`)),
    });
    expect(byId.get(tweet.body.share.id)).toMatchObject({ channel: 'twitter' });
    // Each code is a share link of the merchant's, which the page can look up.
    const link = await service.get(`/v2/referral_links/${codes[1]}`, { auth: a.bearer });
    expect(link.body.referral_link).toMatchObject({ type: 'share' });
    expect((await outbox(a)).length).toBe(before);
    // No recipients or message on a social share.
    for (const extra of [{ email_recipients: ['x@friends.example'] }, { message: 'hi' }]) {
      const refused = await service.post('/browser/v1/shares', { widget_id: widget.id, channel: 'messenger', ...extra }, page(a, ann.token));
      expect([refused.status, refused.body.errors[0].property]).toEqual([400, Object.keys(extra)[0]]);
    }
  });

  it("records an email share from the customer's own address, with the widget and the email channel, and queues the recipients' emails", async () => {
    const reply = await service.post(
      '/browser/v1/shares',
      { widget_id: widget.id, channel: 'email', email_recipients: ['dan@friends.example', 'eve@friends.example'], message: 'Have $10 on me' },
      page(a, ann.token),
    );
    expect(reply.status).toBe(201);
    const share = (await service.get(`/v2/shares/${reply.body.share.id}`, { auth: a.bearer })).body.share;
    expect(share).toMatchObject({
      channel: 'email',
      widget: `${service.url}/v2/widgets/${widget.id}`,
      reward_email_address: 'ann@example.com',
      message: 'Have $10 on me',
      ip_address: '127.0.0.1',
    });
    const mails = (await outbox(a)).filter((mail) => mail.text.includes(`/l/${reply.body.share.referral_code}`));
    expect(mails.map((mail) => mail.to).sort()).toEqual(['dan@friends.example', 'eve@friends.example']);
    // Recipients required; a link in the message refused (the merchant's default policy for customers); an address needed.
    const none = await service.post('/browser/v1/shares', { widget_id: widget.id, channel: 'email' }, page(a, ann.token));
    expect([none.status, none.body.errors[0].property]).toEqual([400, 'email_recipients']);
    const phishing = await service.post(
      '/browser/v1/shares',
      { widget_id: widget.id, channel: 'email', email_recipients: ['x@friends.example'], message: 'Log in at https://evil.example' },
      page(a, ann.token),
    );
    expect([phishing.status, phishing.body.errors[0].property]).toEqual([400, 'message']);
    const nameless = await customerOf(service, a, 'no-address', null);
    const noAddress = await service.post(
      '/browser/v1/shares',
      { widget_id: widget.id, channel: 'email', email_recipients: ['x@friends.example'] },
      page(a, nameless.token),
    );
    expect([noAddress.status, noAddress.body.errors[0]]).toEqual([400, expect.objectContaining({ property: 'reward_email_address', code: 'missing' })]);
    const tooMany = await service.post(
      '/browser/v1/shares',
      { widget_id: widget.id, channel: 'email', email_recipients: Array.from({ length: 51 }, (_, i) => `r${i}@friends.example`) },
      page(a, ann.token),
    );
    expect(tooMany.status).toBe(400);
    const badChannel = await service.post('/browser/v1/shares', { widget_id: widget.id, channel: 'carrier-pigeon' }, page(a, ann.token));
    expect([badChannel.status, badChannel.body.errors[0].property]).toEqual([400, 'channel']);
  });

  it("looks up a referral code of the merchant's (any type, any case) with its attribution_days, and answers another merchant's like an unknown one", async () => {
    const shared = (await service.post('/browser/v1/shares', { widget_id: widget.id, channel: 'twitter' }, page(a, ann.token))).body.share
      .referral_code as string;
    for (const code of [purl, shared, purl.toUpperCase()]) {
      const reply = await service.get(`/browser/v1/referral_codes/${code}`, page(a));
      expect({ code, status: reply.status, body: reply.body }).toEqual({
        code,
        status: 200,
        body: { referral_code: { code: code === shared ? shared : purl, attribution_days: 30 } },
      });
      expect(reply.headers.get('access-control-allow-origin')).toBe(SHOP);
    }
    const bCode = (await service.post('/v2/personal_referral_links', { widget_id: bWidget.id, email_address: 'someone@example.com' }, { auth: b.bearer })).body
      .referral_link.code;
    expect((await service.get(`/browser/v1/referral_codes/${bCode}`, page(b))).status).toBe(200);
    for (const code of [bCode, 'nosuchcode']) {
      const reply = await service.get(`/browser/v1/referral_codes/${code}`, page(a));
      expect({ code, status: reply.status, errors: reply.body.errors }).toEqual({ code, status: 404, errors: [`referral code ${code} not found`] });
    }
    const bad = await service.get(`/browser/v1/referral_codes/${encodeURIComponent('bad code!')}`, page(a));
    expect([bad.status, bad.headers.get('access-control-allow-origin')]).toEqual([400, SHOP]);
    expect((await service.get(`/browser/v1/referral_codes/${'x'.repeat(65)}`, page(a))).status).toBe(400);

    // attribution_days: set, shown, validated, and what the lookup answers.
    const set = await service.patch(`/admin/merchants/${a.id}`, { attribution_days: 7 }, service.admin);
    expect([set.status, set.body.merchant.attribution_days]).toEqual([200, 7]);
    expect((await service.get(`/admin/merchants/${a.id}`, service.admin)).body.merchant.attribution_days).toBe(7);
    expect((await service.get(`/admin/merchants/${b.id}`, service.admin)).body.merchant.attribution_days).toBe(30);
    expect((await service.get(`/browser/v1/referral_codes/${purl}`, page(a))).body.referral_code.attribution_days).toBe(7);
    for (const attribution_days of [0, 366, 1.5, '7', null, -3]) {
      const refused = await service.patch(`/admin/merchants/${a.id}`, { attribution_days }, service.admin);
      expect({ attribution_days, status: refused.status, property: refused.body.errors[0].property }).toEqual({
        attribution_days,
        status: 400,
        property: 'attribution_days',
      });
    }
    expect((await service.get(`/admin/merchants/${a.id}`, service.admin)).body.merchant.attribution_days).toBe(7);
  });

  it('records a purchase the server signed, with the cookie code, as POST /v2/purchases does: a conversion and the advocate’s reward', async () => {
    const token = await purchaseToken(
      { order_id: 'WEB-1', payment_amount: 80, email_address: 'friend@example.com', products: [{ sku: 'TENT', quantity: 1, price: 80 }] },
      a.secretKey,
      inAnHour(),
    );
    const reply = await service.post(
      '/browser/v1/purchases',
      { purchase_token: token, referral_code: purl },
      page(a, undefined, { headers: { referer: 'https://shop.example/thanks?order=WEB-1' } }),
    );
    expect(reply.status).toBe(201);
    expect(reply.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(reply.body.purchase).toEqual({ id: expect.any(Number), order_id: 'WEB-1', referral_code: purl, conversion_id: expect.any(Number) });
    const recorded = (await service.get(`/v2/purchases/${reply.body.purchase.id}`, { auth: a.bearer })).body.purchase;
    expect(recorded).toMatchObject({
      order_id: 'WEB-1',
      payment_amount: 80,
      email_address: 'friend@example.com',
      ip_address: '127.0.0.1',
      referrer: 'https://shop.example/thanks?order=WEB-1',
      products: [{ sku: 'TENT', quantity: 1, price: 80 }],
    });
    const conversions = (await service.get(`/v2/conversions?customer_id=${ann.id}`, { auth: a.bearer })).body.results as { id: number; purchase: string }[];
    expect(conversions.map((c) => [c.id, c.purchase])).toEqual([[reply.body.purchase.conversion_id, `${service.url}/v2/purchases/${reply.body.purchase.id}`]]);
    const rewards = (await service.get(`/v2/rewards?customer_id=${ann.id}`, { auth: a.bearer })).body.results;
    expect(rewards).toEqual([
      expect.objectContaining({ conversion: `${service.url}/v2/conversions/${conversions[0].id}`, reward_type: 'fixed_cash', amount: 10, status: 'approved' }),
    ]);

    // Replayed: 409, nothing changes, no second conversion.
    const replayed = await service.post('/browser/v1/purchases', { purchase_token: token, referral_code: purl }, page(a));
    expect([replayed.status, replayed.headers.get('access-control-allow-origin')]).toEqual([409, SHOP]);
    expect(replayed.text).not.toContain(token);
    expect(await purchasesOf(a, 'WEB-1')).toHaveLength(1);
    expect((await service.get(`/v2/conversions?customer_id=${ann.id}`, { auth: a.bearer })).body.results).toHaveLength(1);

    // Without the cookie: recorded, no conversion. The token's own code wins over no cookie.
    const plain = await service.post('/browser/v1/purchases', { purchase_token: await purchaseToken({ order_id: 'WEB-2' }, a.secretKey, inAnHour()) }, page(a));
    expect(plain.body.purchase).toEqual({ id: expect.any(Number), order_id: 'WEB-2', referral_code: null, conversion_id: null });
    const pinned = await service.post(
      '/browser/v1/purchases',
      { purchase_token: await purchaseToken({ order_id: 'WEB-3', referral_code: purl }, a.secretKey, inAnHour()) },
      page(a),
    );
    expect([pinned.status, pinned.body.purchase.referral_code, pinned.body.purchase.conversion_id]).toEqual([201, purl, expect.any(Number)]);
  });

  it('refuses a forged, unsigned, expired or foreign token, and a cookie code the token contradicts, recording nothing', async () => {
    const refusals: [string, Promise<string>, unknown, number, RegExp][] = [
      [
        'signed with another key',
        purchaseToken({ order_id: 'FORGED-1' }, 'sk_not_the_merchants_key_at_all_000000', inAnHour()),
        undefined,
        401,
        /does not verify with the merchant's secret key/,
      ],
      [
        "another merchant's",
        purchaseToken({ order_id: 'FORGED-2' }, b.secretKey, inAnHour()),
        undefined,
        401,
        /does not verify with the merchant's secret key/,
      ],
      [
        'alg none',
        Promise.resolve(new UnsecuredJWT({ order_id: 'FORGED-3', exp: Math.floor(inAnHour().getTime() / 1000) }).encode()),
        undefined,
        401,
        /does not verify with the merchant's secret key/,
      ],
      ['HS512', purchaseToken({ order_id: 'FORGED-4' }, a.secretKey, inAnHour(), 'HS512'), undefined, 401, /does not verify/],
      ['expired', purchaseToken({ order_id: 'FORGED-5' }, a.secretKey, new Date(clock.now().getTime() - MINUTE)), undefined, 401, /purchase_token expired/],
      [
        'code mismatch',
        purchaseToken({ order_id: 'FORGED-6', referral_code: purl }, a.secretKey, inAnHour()),
        'someone-elses-code',
        400,
        /differs from the one the purchase_token carries/,
      ],
      ['no order_id', purchaseToken({ payment_amount: 5 }, a.secretKey, inAnHour()), undefined, 400, /order_id/],
      ['bad amount', purchaseToken({ order_id: 'FORGED-8', payment_amount: 'lots' }, a.secretKey, inAnHour()), undefined, 400, /payment_amount/],
      ['its own ip', purchaseToken({ order_id: 'FORGED-9', ip_address: '10.0.0.1' }, a.secretKey, inAnHour()), undefined, 400, /ip_address/],
      ['a day and more', purchaseToken({ order_id: 'FORGED-10' }, a.secretKey, new Date(clock.now().getTime() + 25 * 60 * MINUTE)), undefined, 400, /exp/],
      ['not a JWT', Promise.resolve('not-a-token'), undefined, 400, /must be a JWT/],
    ];
    for (const [name, made, cookie, status, message] of refusals) {
      const token = await made;
      const reply = await service.post('/browser/v1/purchases', { purchase_token: token, ...(cookie ? { referral_code: cookie } : {}) }, page(a));
      const text = JSON.stringify(reply.body.errors);
      expect({ name, status: reply.status, message: message.test(text), cors: reply.headers.get('access-control-allow-origin') }).toEqual({
        name,
        status,
        message: true,
        cors: SHOP,
      });
      expect(reply.text).not.toContain(token);
    }
    for (let i = 1; i <= 10; i += 1) expect({ i, found: await purchasesOf(a, `FORGED-${i}`) }).toEqual({ i, found: [] });
    expect(await purchasesOf(b, 'FORGED-2')).toEqual([]);
    expect((await service.get(`/v2/conversions?customer_id=${ann.id}`, { auth: a.bearer })).body.results).toHaveLength(2);
  });
});

describe('browser shares and purchases throttling', () => {
  let service: Service;
  let m: Merchant;
  let widgetId: number;
  let token: string;
  beforeAll(async () => {
    service = await Service.start({ env: { BROWSER_SHARES_PER_MINUTE_PER_ADDRESS: '2', BROWSER_PURCHASES_PER_MINUTE_PER_ADDRESS: '2' } });
    m = await withKey(service, await createMerchant(service, 'Throttled shop'), SHOP);
    widgetId = (await createWidget(service, m, { published: true })).id;
    token = (await customerOf(service, m, 'fay')).token;
  }, 30_000);
  afterAll(async () => {
    await service.stop();
  });

  it('answers 429 with Retry-After past the shares, then the purchases, an address may send in a minute, readable by the page', async () => {
    const headers = { 'x-publishable-key': m.pk, origin: SHOP, 'x-customer-token': token };
    const shares: number[] = [];
    let last;
    for (let i = 0; i < 3; i += 1) {
      last = await service.post('/browser/v1/shares', { widget_id: widgetId, channel: 'facebook' }, { headers });
      shares.push(last.status);
    }
    expect(shares).toEqual([201, 201, 429]);
    expect(last!.body.errors).toEqual([expect.stringMatching(/too many shares from this address; retry after \d+ s/)]);
    expect([Number(last!.headers.get('retry-after')) >= 1, last!.headers.get('access-control-allow-origin')]).toEqual([true, SHOP]);
    const purchases: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const signed = await purchaseToken({ order_id: `T-${i}` }, m.secretKey, new Date(Date.now() + 60 * MINUTE));
      last = await service.post('/browser/v1/purchases', { purchase_token: signed }, { headers: { 'x-publishable-key': m.pk, origin: SHOP } });
      purchases.push(last.status);
    }
    expect(purchases).toEqual([201, 201, 429]);
    expect(last!.body.errors).toEqual([expect.stringMatching(/too many purchases from this address; retry after \d+ s/)]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The throttled purchase was not recorded.
    expect((await service.get('/v2/purchases?order_id=T-2', { auth: m.bearer })).body.results).toEqual([]);
    // Other browser routes still answer: the limits are per kind.
    expect((await service.post('/browser/v1/referral_links', { widget_id: widgetId }, { headers })).status).toBe(201);
  });
});

describe('attribution_days and social shares across a restart', () => {
  it('keeps the setting and the share with its channel: both are events', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'referral-browser-restart-'));
    try {
      const first = await Service.start({ dataDir });
      const m = await withKey(first, await createMerchant(first, 'Restarted shop'), SHOP);
      const widgetId = (await createWidget(first, m, { published: true })).id;
      const gus = await customerOf(first, m, 'gus');
      expect((await first.patch(`/admin/merchants/${m.id}`, { attribution_days: 12 }, first.admin)).status).toBe(200);
      const share = (
        await first.post(
          '/browser/v1/shares',
          { widget_id: widgetId, channel: 'messenger' },
          { headers: { 'x-publishable-key': m.pk, origin: SHOP, 'x-customer-token': gus.token } },
        )
      ).body.share;
      await first.stop(true);
      const second = await Service.start({ dataDir });
      try {
        expect((await second.get(`/admin/merchants/${m.id}`, second.admin)).body.merchant.attribution_days).toBe(12);
        const lookup = await second.get(`/browser/v1/referral_codes/${share.referral_code}`, { headers: { 'x-publishable-key': m.pk, origin: SHOP } });
        expect(lookup.body).toEqual({ referral_code: { code: share.referral_code, attribution_days: 12 } });
        expect((await second.get(`/v2/shares/${share.id}`, { auth: m.bearer })).body.share).toMatchObject({ channel: 'messenger' });
      } finally {
        await second.stop(true);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('browser customer routes in the sandbox', () => {
  const service = serviceForSuite({ sandbox: true });

  it("serves the same routes under /sandbox/browser/v1 against the sample merchant's data, with sandbox links", async () => {
    const info = (await service().get('/admin/sandbox', service().admin)).body.sandbox;
    const merchantToken = (await service().post('/sandbox/v2/tokens/merchant', { access_key: info.access_key, secret_key: info.secret_key })).body.token;
    const customers = (await service().get('/sandbox/v2/customers?limit=100', { auth: `Bearer ${merchantToken}` })).body.results as {
      id: number;
      email_address: string;
    }[];
    const ada = customers.find((c) => c.email_address === 'ada@outdoor-sample.example')!;
    const customerToken = (await service().post('/sandbox/v2/tokens/customer', { customer_id: ada.id }, { auth: `Bearer ${merchantToken}` })).body.token;
    const headers = { 'x-publishable-key': info.publishable_key, origin: 'http://localhost:8080', 'x-customer-token': customerToken };
    const link = await service().post('/sandbox/browser/v1/referral_links', { widget_id: 1002 }, { headers });
    expect([link.status, link.headers.get('access-control-allow-origin')]).toEqual([201, 'http://localhost:8080']);
    expect(link.body.referral_link.url).toBe(`${service().url}/sandbox/l/${link.body.referral_link.code}`);
    const share = await service().post('/sandbox/browser/v1/shares', { widget_id: 1002, channel: 'messenger' }, { headers });
    expect([share.status, share.body.share.url]).toEqual([201, `${service().url}/sandbox/l/${share.body.share.referral_code}`]);
    const lookup = await service().get(`/sandbox/browser/v1/referral_codes/${link.body.referral_link.code}`, { headers });
    expect(lookup.body).toEqual({ referral_code: { code: link.body.referral_link.code, attribution_days: 30 } });
    const signed = await purchaseToken({ order_id: 'SANDBOX-WEB-1', payment_amount: 40 }, info.secret_key, new Date(Date.now() + 60 * MINUTE));
    const purchase = await service().post(
      '/sandbox/browser/v1/purchases',
      { purchase_token: signed, referral_code: link.body.referral_link.code },
      { headers },
    );
    expect([purchase.status, purchase.body.purchase.conversion_id]).toEqual([201, expect.any(Number)]);
    // The live API knows none of it.
    expect((await service().get(`/browser/v1/referral_codes/${link.body.referral_link.code}`, { headers })).status).toBe(401);
  }, 30_000);

  it("answers the sandbox's own pages (the demo shop: Sec-Fetch-Site same-origin, no Origin on a GET) without CORS headers; the live routes do not", async () => {
    const info = (await service().get('/admin/sandbox', service().admin)).body.sandbox;
    const own = await service().get('/sandbox/browser/v1/widgets', { headers: { 'x-publishable-key': info.publishable_key, 'sec-fetch-site': 'same-origin' } });
    expect([own.status, own.headers.get('access-control-allow-origin'), own.body.widgets.length]).toEqual([200, null, 3]);
    // Another site's page says cross-site: its Origin is what counts, and it is not allowed.
    const other = await service().get('/sandbox/browser/v1/widgets', {
      headers: { 'x-publishable-key': info.publishable_key, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    });
    expect([other.status, other.headers.get('access-control-allow-origin')]).toEqual([403, null]);
    const m = await createMerchant(service(), 'Live shop');
    const pk = (await service().get(`/admin/merchants/${m.id}`, service().admin)).body.merchant.publishable_key;
    const live = await service().get('/browser/v1/widgets', { headers: { 'x-publishable-key': pk, 'sec-fetch-site': 'same-origin' } });
    expect([live.status, live.body.errors]).toEqual([403, [expect.stringMatching(/no Origin header/)]]);
  });
});
