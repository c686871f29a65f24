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
    await tab.setViewport(viewport);
    tab.on('pageerror', (error) => console.error(`page error on ${path}:`, error));
    await tab.goto(`${shop.origin}${path}`, { waitUntil: 'load' });
    return tab;
  }

  /** Text inside a widget's shadow root. */
  const shadowText = (tab: Page, host: string) => tab.$eval(host, (element) => element.shadowRoot?.textContent ?? '');
  const linkShown = (tab: Page, host: string) =>
    tab.waitForFunction((selector) => (document.querySelector(selector)?.shadowRoot?.querySelector('input[readonly]') as { value: string } | null)?.value || undefined, {}, host).then((handle) => handle.jsonValue() as Promise<string>);
  const statusOf = (tab: Page, host: string) =>
    tab.waitForFunction((selector) => document.querySelector(selector)?.shadowRoot?.querySelector('[role=status]')?.textContent || undefined, {}, host).then((handle) => handle.jsonValue() as Promise<string>);

  beforeAll(async () => {
    [service, browser, shop] = await Promise.all([
      Service.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } }),
      launchBrowser(),
      Shop.start(),
    ]);
    const m = await createMerchant(service, 'Trail shop');
    merchant = { ...m, pk: (await service.get(`/admin/merchants/${m.id}`, service.admin)).body.merchant.publishable_key };
    expect((await service.patch(`/admin/merchants/${m.id}`, { allowed_origins: [shop.origin] }, service.admin)).status).toBe(200);
    widget = await createWidget(service, merchant, { name: 'Give $10, get $10', published: true, destination_url: `${shop.origin}/welcome` });
    capture = await createWidget(service, merchant, { name: 'Trail news', objective: 'email_capture', published: true, reward_type: null, reward_amount: null, destination_url: `${shop.origin}/welcome` });
    advocate = (await service.post('/v2/customers', { account_id: 'ada', email_address: 'ada@example.com', first_name: 'Ada' }, v2())).body.customer;

    shop.route('/token', async () => ({ status: 200, body: await customerToken(), type: 'text/plain' }));
    shop.route('/account', async () =>
      page(
        `<h1>Your account</h1><div class="product"><div><p>Invite friends to the trail.</p></div><div id="advocate" data-referral-widget="referral"></div></div>`,
        `<script>referral('customer', { token: ${JSON.stringify(await customerToken())}, refresh: () => fetch('/token').then((r) => r.text()) });</script>`,
      ),
    );
    shop.route('/welcome', () => page(`<h1>Welcome, friend</h1><p>Trail Runner 2, $129.50</p><div id="capture" data-referral-widget="email_capture"></div>`));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close().catch(() => undefined)));
    await Promise.all([browser?.close(), shop?.stop(), service?.stop()]);
  });

  it('renders the advocate widget on a page of another origin with only the publishable key, at desktop and phone width', async () => {
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
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
    expect(captures).toEqual([expect.objectContaining({ email_address: 'walker@example.com', widget: `${service.url}/v2/widgets/${capture.id}`, referral_link: null })]);
    console.log(`screenshot: ${await screenshot(tab, 'capture-desktop')}`);
  });

  it('serves a variant group by distribution, the same variant to the same visitor on every visit', async () => {
    const first = await createWidget(service, merchant, { name: 'Summer A', widget_group_id: 'summer', distribution: 50, published: true });
    await createWidget(service, merchant, { name: 'Summer B', widget_group_id: 'summer', distribution: 50, published: true });
    shop.route('/summer', () => page(`<h1>Summer</h1><div id="offer" data-referral-widget="${first.id}"></div>`));
    const title = (tab: Page) => tab.waitForFunction(() => document.querySelector('#offer')?.shadowRoot?.querySelector('h2')?.textContent || undefined).then((h) => h.jsonValue() as Promise<string>);
    const seen = new Set<string>();
    for (let visitor = 0; visitor < 12; visitor += 1) {
      const tab = await open('/summer');
      const shown = await title(tab);
      const id = await tab.evaluate(() => localStorage.getItem('referral_visitor'));
      // The variant the page shows is the one the service serves this visitor...
      const served = await service.get(`/browser/v1/widgets/${first.id}/variant?visitor=${id}`, { headers: { 'x-publishable-key': merchant.pk, origin: shop.origin } });
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
    const outcome = await tab.evaluate(() => (window as any).referral.render('#capture', { objective: 'email_capture' }).then(() => 'rendered', (error: Error) => `${error.name}: ${error.message}`));
    expect(outcome).toBe('TypeError: Failed to fetch');
    expect(await tab.$eval('#capture', (element) => element.shadowRoot?.childNodes.length ?? 0)).toBe(0);
    expect(messages.join('\n')).toMatch(/blocked by CORS policy/);
  });
});
