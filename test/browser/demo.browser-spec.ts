/**
 * The sandbox's demo shop (/sandbox/demo) in a real browser: the advocate's page, following the
 * advocate's link as a friend, buying, and the order attributed to the advocate.
 */
import type { Browser, Page } from 'puppeteer-core';
import { DESKTOP, launchBrowser, PHONE, screenshot } from '../support/browser.js';
import { Service } from '../support/service.js';

// The callbacks given to page.evaluate run in the page; the project compiles without the DOM's types.
declare const document: any;

const SAMPLE_KEYS = { access_key: 'ak_sandbox_sample_merchant_0001', secret_key: 'sk_sandbox_sample_merchant_secret_0001' };

describe('the demo shop on the sandbox', () => {
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    [service, browser] = await Promise.all([Service.start({ sandbox: true }), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), service?.stop()]);
  });

  const text = (tab: Page, selector: string, not: string) =>
    tab
      .waitForFunction(
        (s: string, n: string) => {
          const t = document.querySelector(s)?.textContent;
          return t && t !== n ? t : undefined;
        },
        {},
        selector,
        not,
      )
      .then((h) => h.jsonValue() as Promise<string>);

  it("runs the whole flow: Ada's widget, her link followed by a friend, the friend's order attributed to her", async () => {
    const context = await browser.createBrowserContext();
    const tab = await context.newPage();
    tab.on('pageerror', (error) => console.error('demo page error:', error));
    for (const [name, viewport] of [
      ['phone', PHONE],
      ['desktop', DESKTOP],
    ] as const) {
      await tab.setViewport(viewport);
      await tab.goto(`${service.url}/sandbox/demo`, { waitUntil: 'load' });
      const link = await tab
        .waitForFunction(() => document.querySelector('#referral-advocate')?.shadowRoot?.querySelector('input[readonly]')?.value || undefined)
        .then((h) => h.jsonValue() as Promise<string>);
      expect(link).toMatch(new RegExp(`^${service.url}/sandbox/l/[a-z0-9]+$`));
      console.log(`screenshot: ${await screenshot(tab, `demo-account-${name}`)}`);
    }

    await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.click('a.button')]);
    const code = new URL(tab.url()).searchParams.get('referral_code');
    expect(await text(tab, '#attribution', 'Reading the referral code…')).toContain(`Referral code ${code} is kept until`);
    await tab.waitForFunction(() => document.querySelector('#referral-capture')?.shadowRoot?.querySelector('input[type=email]'));
    console.log(`screenshot: ${await screenshot(tab, 'demo-welcome-desktop')}`);

    await tab.$eval('#email', (input: any) => (input.value = 'demo.friend@example.com'));
    await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.click('form .button')]);
    const result = await text(tab, '#result', 'Reporting the purchase…');
    expect(result).toMatch(new RegExp(`^Purchase \\d+ recorded and attributed to code ${code} \\(conversion \\d+\\)\\.$`));
    console.log(`screenshot: ${await screenshot(tab, 'demo-order-desktop')}`);

    const orderId = (await tab.$eval('h2', (h: any) => h.textContent as string)).replace('Order ', '');
    const token = (await service.post('/sandbox/v2/tokens/merchant', SAMPLE_KEYS)).body.token;
    const purchases = (await service.get(`/sandbox/v2/purchases?order_id=${orderId}`, { auth: `Bearer ${token}` })).body.results;
    expect(purchases).toEqual([expect.objectContaining({ order_id: orderId, email_address: 'demo.friend@example.com', payment_amount: 129.5 })]);
    await context.close();
  });
});
