/**
 * The embedded library in a real browser (docs/embedding.md): a shop on another origin adds the
 * script with its publishable key, shows the advocate and email-capture widgets, cookies friends
 * who arrive through a referral link, and reports orders with tokens its server signed.
 */
import { SignJWT } from 'jose';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { DESKTOP, launchBrowser, PHONE, screenshot, Shop, shopPage } from '../support/browser.js';
// The callbacks given to page.evaluate run in the page; the project compiles without the DOM's types.
declare const document: any;
declare const localStorage: any;
declare const window: any;

import { createMerchant, createWidget, eventually, Service, TestMerchant } from '../support/service.js';

describe('the embedded library in Chromium', () => {
  let service: Service;
  let browser: Browser;
  let shop: Shop;
  let merchant: TestMerchant & { pk: string };
  let widget: { id: number };
  let capture: { id: number };
  let advocate: { id: number; email_address: string };
  const contexts: BrowserContext[] = [];

  const v2 = () => ({ auth: merchant.bearer });
  const page = (body: string, head = '') => shopPage({ service: service.url, publishableKey: merchant.pk, body, head });
  /** The merchant's server: a customer token for the signed-in advocate (POST /v2/tokens/customer). */
  const customerToken = async () => (await service.post('/v2/tokens/customer', { customer_id: advocate.id }, v2())).body.token as string;
  /** The merchant's server: the order's fields, signed with its secret key for the page to pass on. */
  const purchaseToken = (claims: Record<string, unknown>, key = merchant.secretKey) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(key));

  async function open(path: string, viewport = DESKTOP): Promise<Page> {
    const context = await browser.createBrowserContext();
    contexts.push(context);
    const tab = await context.newPage();
    // Well inside jest's 30 s, so that a wait that fails says which one.
    tab.setDefaultTimeout(10_000);
    await tab.setViewport(viewport);
    tab.on('pageerror', (error) => console.error(`page error on ${path}:`, error));
    // What the library warns about (a widget not shown, a refused call) says why a wait below failed.
    tab.on('console', (message) => message.type() === 'warn' && console.warn(`console on ${path}: ${message.text()}`));
    await tab.goto(`${shop.origin}${path}`, { waitUntil: 'load' });
    return tab;
  }

  /** Text inside a widget's shadow root. */
  const shadowText = (tab: Page, host: string) => tab.$eval(host, (element) => element.shadowRoot?.textContent ?? '');
  const linkShown = (tab: Page, host: string) =>
    tab
      .waitForFunction(
        (selector) => (document.querySelector(selector)?.shadowRoot?.querySelector('input[readonly]') as { value: string } | null)?.value || undefined,
        {},
        host,
      )
      .then((handle) => handle.jsonValue() as Promise<string>);
  const statusOf = (tab: Page, host: string) =>
    tab
      .waitForFunction((selector) => document.querySelector(selector)?.shadowRoot?.querySelector('[role=status]')?.textContent || undefined, {}, host)
      .then((handle) => handle.jsonValue() as Promise<string>);

  beforeAll(async () => {
    [service, browser, shop] = await Promise.all([Service.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } }), launchBrowser(), Shop.start()]);
    const m = await createMerchant(service, 'Trail shop');
    merchant = { ...m, pk: (await service.get(`/admin/merchants/${m.id}`, service.admin)).body.merchant.publishable_key };
    expect((await service.patch(`/admin/merchants/${m.id}`, { allowed_origins: [shop.origin] }, service.admin)).status).toBe(200);
    widget = await createWidget(service, merchant, { name: 'Give $10, get $10', published: true, destination_url: `${shop.origin}/welcome` });
    capture = await createWidget(service, merchant, {
      name: 'Trail news',
      objective: 'email_capture',
      published: true,
      reward_type: null,
      reward_amount: null,
      destination_url: `${shop.origin}/welcome`,
    });
    advocate = (await service.post('/v2/customers', { account_id: 'ada', email_address: 'ada@example.com', first_name: 'Ada' }, v2())).body.customer;

    shop.route('/blank-start', () => '<!doctype html><title>start</title>');
    shop.route('/token', async () => ({ status: 200, body: await customerToken(), type: 'text/plain' }));
    shop.route('/account', async () =>
      page(
        `<h1>Your account</h1><div class="product"><div><p>Invite friends to the trail.</p></div><div id="advocate" data-referral-widget="referral"></div></div>`,
        `<script>referral('customer', { token: ${JSON.stringify(await customerToken())}, refresh: () => fetch('/token').then((r) => r.text()) });</script>`,
      ),
    );
    // The order confirmation: the shop's server signed the order once; the page reports that token (a reload reports it again).
    const signed = new Map<string, string>();
    shop.route('/order', async (_request, url) => {
      const orderId = url.searchParams.get('order')!;
      const key = url.searchParams.get('forged') ? 'sk_not_the_merchants_secret_key_000000' : merchant.secretKey;
      if (!signed.has(orderId))
        signed.set(
          orderId,
          await purchaseToken({ order_id: orderId, payment_amount: 129.5, new_customer: 'yes', email_address: `${orderId}@example.com` }, key),
        );
      return page(
        `<h1>Thank you</h1><p id="result"></p>`,
        `<script>referral('ready', (r) => r.trackPurchase({ purchase_token: ${JSON.stringify(signed.get(orderId))} }).then((result) => { document.body.dataset.result = JSON.stringify(result); }, (e) => { document.body.dataset.result = 'refused ' + e.status + ': ' + e.message; }));</script>`,
      );
    });
    // The pages read the catalogue once: both widgets are in it before any test opens one.
    await eventually(async () => {
      const listed = await service.get('/browser/v1/widgets', { headers: { 'x-publishable-key': merchant.pk, origin: shop.origin } });
      expect(listed.body.widgets.map((w: { id: number }) => w.id)).toEqual([widget.id, capture.id]);
    }, 20_000);
    shop.route('/welcome', () => page(`<h1>Welcome, friend</h1><p>Trail Runner 2, $129.50</p><div id="capture" data-referral-widget="email_capture"></div>`));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close().catch(() => undefined)));
    await Promise.all([browser?.close(), shop?.stop(), service?.stop()]);
  });

  it('renders the advocate widget on a page of another origin with only the publishable key, at desktop and phone width', async () => {
    for (const [name, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const tab = await open('/account', viewport);
      const url = await linkShown(tab, '#advocate');
      const purl = (await service.get(`/v2/personal_referral_links?customer_id=${advocate.id}&widget_id=${widget.id}`, v2())).body.results;
      expect(purl).toHaveLength(1);
      expect(url).toBe(`${service.url}/l/${purl[0].code ?? purl[0].referral_code}`);
      expect(await shadowText(tab, '#advocate')).toContain('Give $10, get $10');
      // Nothing of the widget leaks into the page: its markup is in the shadow root.
      expect(await tab.$$eval('#advocate *', (nodes) => nodes.length)).toBe(0);
      const width = await tab.$eval('#advocate', (element) => element.shadowRoot!.querySelector('.card')!.getBoundingClientRect().width);
      expect(width).toBeLessThanOrEqual(viewport.width);
      console.log(`screenshot: ${await screenshot(tab, `advocate-${name}`)}`);
    }
  });

  it('records an email capture from the capture widget, with its widget, typed and sent with the keyboard alone', async () => {
    const tab = await open('/welcome');
    await tab.waitForSelector('#capture >>> input[type=email]');
    await tab.focus('#capture >>> input[type=email]');
    await tab.keyboard.type('walker@example.com');
    await tab.keyboard.press('Tab'); // the Sign up button
    await tab.keyboard.press('Tab'); // the newsletter box
    await tab.keyboard.press('Space');
    await tab.keyboard.press('Enter');
    expect(await statusOf(tab, '#capture')).toBe('Thanks, you are signed up.');
    const captures = (await service.get(`/v2/email_captures?widget_id=${capture.id}`, v2())).body.results;
    expect(captures).toEqual([
      expect.objectContaining({ email_address: 'walker@example.com', widget: `${service.url}/v2/widgets/${capture.id}`, referral_link: null }),
    ]);
    console.log(`screenshot: ${await screenshot(tab, 'capture-desktop')}`);
  });

  it('serves a variant group by distribution, the same variant to the same visitor on every visit', async () => {
    const first = await createWidget(service, merchant, { name: 'Summer A', widget_group_id: 'summer', distribution: 50, published: true });
    await createWidget(service, merchant, { name: 'Summer B', widget_group_id: 'summer', distribution: 50, published: true });
    shop.route('/summer', () => page(`<h1>Summer</h1><div id="offer" data-referral-widget="${first.id}"></div>`));
    const title = (tab: Page) =>
      tab
        .waitForFunction(() => document.querySelector('#offer')?.shadowRoot?.querySelector('h2')?.textContent || undefined)
        .then((h) => h.jsonValue() as Promise<string>);
    const seen = new Set<string>();
    for (let visitor = 0; visitor < 12; visitor += 1) {
      const tab = await open('/summer');
      const shown = await title(tab);
      const id = await tab.evaluate(() => localStorage.getItem('referral_visitor'));
      // The variant the page shows is the one the service serves this visitor...
      const served = await service.get(`/browser/v1/widgets/${first.id}/variant?visitor=${id}`, {
        headers: { 'x-publishable-key': merchant.pk, origin: shop.origin },
      });
      expect(shown).toBe(served.body.widget.name);
      // ...and stays it on the next visit.
      await tab.reload({ waitUntil: 'load' });
      expect(await title(tab)).toBe(shown);
      seen.add(shown);
      await tab.close();
    }
    // Twelve visitors at 50/50 all shown the same variant: a chance of 1 in 2,048.
    expect([...seen].sort()).toEqual(['Summer A', 'Summer B']);
  });

  it('is refused by CORS on an origin the merchant does not allow: the page gets nothing', async () => {
    const messages: string[] = [];
    const context = await browser.createBrowserContext();
    contexts.push(context);
    const tab = await context.newPage();
    tab.on('console', (message) => messages.push(message.text()));
    // The same shop under another name (localhost instead of 127.0.0.1): another origin.
    await tab.goto(`${shop.otherOrigin}/welcome`, { waitUntil: 'load' });
    const outcome = await tab.evaluate(() =>
      (window as any).referral.render('#capture', { objective: 'email_capture' }).then(
        () => 'rendered',
        (error: Error) => `${error.name}: ${error.message}`,
      ),
    );
    expect(outcome).toBe('TypeError: Failed to fetch');
    expect(await tab.$eval('#capture', (element) => element.shadowRoot?.childNodes.length ?? 0)).toBe(0);
    expect(messages.join('\n')).toMatch(/blocked by CORS policy/);
  });

  /** What the order page's trackPurchase call came to. */
  const orderOutcome = (tab: Page) => tab.waitForFunction(() => document.body.dataset.result).then((h) => h.jsonValue() as Promise<string>);
  const purchasesOf = async (orderId: string) => (await service.get(`/v2/purchases?order_id=${orderId}`, v2())).body.results as { id: number }[];
  const conversionsOf = async (customerId: number) =>
    (await service.get(`/v2/conversions?customer_id=${customerId}&limit=100`, v2())).body.results as { purchase: string; channel: string; source: string }[];

  it('cookies a friend who arrives through /l/{code}, and attributes the order their page reports to the advocate: a conversion and a reward', async () => {
    const purl = await linkShown(await open('/account'), '#advocate');
    const code = purl.split('/l/')[1];
    // The friend, in a browser of their own, follows the advocate's link.
    const friend = await open('/blank-start');
    await friend.goto(purl, { waitUntil: 'load' });
    expect(new URL(friend.url()).origin).toBe(shop.origin);
    expect(new URL(friend.url()).searchParams.get('referral_code')).toBe(code);
    const kept = await friend
      .waitForFunction(() => (window as any).referral?.attribution?.())
      .then((h) => h.jsonValue() as Promise<{ referral_code: string; landed_at: string; expires_at: string }>);
    expect(kept.referral_code).toBe(code);
    expect(Date.parse(kept.expires_at) - Date.parse(kept.landed_at)).toBe(30 * 86_400_000);
    // A first-party cookie on the shop's own host, holding no personal data.
    const cookies = await friend.cookies();
    expect(cookies.map((c) => [c.name, c.domain, c.path, c.sameSite, c.httpOnly])).toEqual([['referral_attribution', '127.0.0.1', '/', 'Lax', false]]);
    expect(decodeURIComponent(cookies[0].value)).toMatch(new RegExp(`^${code}\\|\\d+\\|30$`));

    // Later, on the order page, the purchase token the shop's server signed is reported with the cookie's code.
    await friend.goto(`${shop.origin}/order?order=friend-order-1`, { waitUntil: 'load' });
    const outcome = JSON.parse(await orderOutcome(friend));
    expect(outcome).toEqual({
      status: 'recorded',
      purchase: expect.objectContaining({ order_id: 'friend-order-1', referral_code: code, conversion_id: expect.any(Number) }),
    });
    const conversion = (await conversionsOf(advocate.id)).find((c) => c.purchase.endsWith(`/${outcome.purchase.id}`));
    expect(conversion).toEqual(expect.objectContaining({ channel: 'personal_url', source: `${service.url}/v2/referral_links/${code}` }));
    const rewards = (await service.get(`/v2/rewards?customer_id=${advocate.id}`, v2())).body.results;
    expect(rewards).toEqual([
      expect.objectContaining({ conversion: `${service.url}/v2/conversions/${outcome.purchase.conversion_id}`, amount: 10, reward_type: 'fixed_cash' }),
    ]);

    // The same token reported again (the page reloaded) records nothing more.
    await friend.reload({ waitUntil: 'load' });
    expect(JSON.parse(await orderOutcome(friend))).toEqual({ status: 'already_recorded' });
    expect(await purchasesOf('friend-order-1')).toHaveLength(1);
    expect((await conversionsOf(advocate.id)).filter((c) => c.purchase.endsWith(`/${outcome.purchase.id}`))).toHaveLength(1);
  });

  it("records nothing for a purchase token the page forged (not signed with the merchant's secret key), whatever code the visitor has", async () => {
    const purl = await linkShown(await open('/account'), '#advocate');
    const friend = await open('/blank-start');
    await friend.goto(purl, { waitUntil: 'load' });
    await friend.waitForFunction(() => (window as any).referral?.attribution?.());
    const before = (await conversionsOf(advocate.id)).length;
    await friend.goto(`${shop.origin}/order?order=forged-order-1&forged=1`, { waitUntil: 'load' });
    expect(await orderOutcome(friend)).toMatch(/^refused 401: /);
    expect(await purchasesOf('forged-order-1')).toEqual([]);
    expect(await conversionsOf(advocate.id)).toHaveLength(before);
  });

  /** The advocate's shares, each with its code (the end of its referral_link). */
  const sharesOf = async (customerId: number) =>
    (
      (await service.get(`/v2/shares?customer_id=${customerId}&limit=100`, v2())).body.results as {
        id: number;
        channel: string;
        referral_link: string;
        widget: string;
      }[]
    ).map((share) => ({
      ...share,
      referral_code: share.referral_link.split('/').pop()!,
    }));

  it('sends an email share from the widget with the keyboard alone, recorded with its widget, channel and a code of its own', async () => {
    const tab = await open('/account');
    const purl = await linkShown(tab, '#advocate');
    // From the link field, Tab reaches each control in order: Copy, Facebook, X, recipients, message, Send.
    await tab.focus('#advocate >>> input[readonly]');
    const focused = async () =>
      tab.evaluate(() => {
        const active = document.querySelector('#advocate').shadowRoot.activeElement;
        return active
          ? active.id
            ? (document.querySelector('#advocate').shadowRoot.querySelector(`label[for="${active.id}"]`)?.textContent ?? active.textContent)
            : active.textContent
          : null;
      });
    const order: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      await tab.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual(['Copy link', 'Share on Facebook', 'Share on X', "Friends' email addresses", 'Message (optional)']);
    await tab.keyboard.down('Shift');
    await tab.keyboard.press('Tab'); // back to the recipients
    await tab.keyboard.up('Shift');
    await tab.keyboard.type('bea@example.com, carl@example.com');
    await tab.keyboard.press('Tab');
    await tab.keyboard.type('Come run with me!');
    await tab.keyboard.press('Tab');
    expect(await focused()).toBe('Send invites');
    await tab.keyboard.press('Enter');
    expect(await statusOf(tab, '#advocate')).toBe('Invites sent to 2 friends.');
    const share = (await sharesOf(advocate.id)).find((s) => s.channel === 'email');
    expect(share).toEqual(expect.objectContaining({ channel: 'email', widget: `${service.url}/v2/widgets/${widget.id}` }));
    expect(share!.referral_code).toMatch(/^[a-z0-9]{8}$/);
    expect(share!.referral_code).not.toBe(purl.split('/l/')[1]);
  });

  it("gives each social share its own referral code, and opens the network with that share's link", async () => {
    const tab = await open('/account');
    const purl = await linkShown(tab, '#advocate');
    const popups: string[] = [];
    const codes: string[] = [];
    for (const label of ['Share on Facebook', 'Share on Facebook', 'Share on X']) {
      const opened = browser.waitForTarget((target) => /facebook\.com\/sharer|twitter\.com\/intent/.test(target.url()), { timeout: 10_000 });
      const [button] = await tab.$$(`#advocate >>> ::-p-text(${label})`);
      await button.click();
      popups.push((await opened).url());
      await (await (await opened).page())?.close();
    }
    const social = (await sharesOf(advocate.id)).filter((s) => s.channel !== 'email');
    expect(social.map((s) => s.channel).sort()).toEqual(['facebook', 'facebook', 'twitter']);
    for (const s of social) codes.push(s.referral_code);
    // Three shares, three codes, none of them the advocate's own link...
    expect(new Set([...codes, purl.split('/l/')[1]]).size).toBe(4);
    // ...and each network was opened with its own share's trackable link.
    const opened = popups.map((url) => decodeURIComponent(url).match(new RegExp(`${service.url}/l/([a-z0-9]+)`))?.[1]);
    expect(opened.sort()).toEqual([...codes].sort());
  });

  it("gets a new customer token from the page's refresh function when the one it was given is refused", async () => {
    shop.route('/account-stale', () =>
      page(
        `<div id="advocate" data-referral-widget="referral"></div>`,
        `<script>window.refreshed = 0; referral('customer', { token: 'ct_expired', refresh: () => { window.refreshed += 1; return fetch('/token').then((r) => r.text()); } });</script>`,
      ),
    );
    const tab = await open('/account-stale');
    expect(await linkShown(tab, '#advocate')).toMatch(new RegExp(`^${service.url}/l/`));
    expect(await tab.evaluate(() => (window as any).refreshed)).toBe(1);
  });

  it("keeps the last referral code followed, and does not keep a code that is not the merchant's", async () => {
    const first = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: 'first@example.com' }, v2())).body.referral_link;
    const second = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: 'second@example.com' }, v2())).body.referral_link;
    const codeOf = (link: { code?: string; referral_code?: string }) => (link.code ?? link.referral_code)!;
    const friend = await open(`/welcome?referral_code=${codeOf(first)}`);
    const kept = () =>
      friend
        .waitForFunction(() => (window as any).referral?.ready?.then(() => (window as any).referral.attribution()?.referral_code ?? 'none'))
        .then((h) => h.jsonValue());
    expect(await kept()).toBe(codeOf(first));
    await friend.goto(`${shop.origin}/welcome?referral_code=${codeOf(second)}`, { waitUntil: 'load' });
    expect(await kept()).toBe(codeOf(second));
    await friend.goto(`${shop.origin}/welcome?referral_code=nosuch99`, { waitUntil: 'load' });
    expect(await kept()).toBe(codeOf(second));
    await friend.goto(`${shop.origin}/welcome`, { waitUntil: 'load' });
    expect(await kept()).toBe(codeOf(second));
  });

  it('works as an ES module too, with the service it was loaded from as its API', async () => {
    shop.route(
      '/module',
      () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Module</title></head><body>
<div id="capture"></div>
<script type="module">
import { createReferral } from '${service.url}/js/v1/referral.mjs';
const referral = createReferral({ publishableKey: '${merchant.pk}' });
referral.render('#capture', { objective: 'email_capture' }).then((shown) => { document.body.dataset.widget = String(shown.widget.id); });
</script></body></html>`,
    );
    const tab = await open('/module');
    expect(await tab.waitForFunction(() => document.body.dataset.widget).then((h) => h.jsonValue())).toBe(String(capture.id));
    expect(await shadowText(tab, '#capture')).toContain('Trail news');
  });
});
