/**
 * The demo shop (`/sandbox/demo`): a shop that runs the embedded library against the sandbox, and
 * plays its merchant's server too: it mints the signed-in advocate's customer token and signs
 * the purchase token of each order with the sample merchant's secret key, as docs/embedding.md
 * tells a merchant to. Served by sandbox generations only.
 */
import { Controller, Get, Header, Inject, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { CustomerQueries } from '../../customers/index.js';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { CUSTOMER_TOKEN_TTL_MS, issueToken } from '../../platform/auth/tokens.js';
import { MERCHANT_LOOKUP, type MerchantLookup, type MerchantRecord } from '../../platform/auth/principal.js';
import { NotFoundError } from '../../platform/errors.js';
import { ReferralLinkQueries } from '../../referral-links/index.js';
import { MAX_BROWSER_WIDGETS } from '../../browser/index.js';
import { WidgetQueries } from '../../widgets/index.js';
import { SAMPLE_MERCHANT } from '../sample-data.js';
import { demoPage, html, scriptValue } from './demo-shop.js';

/** The signed-in shopper of the demo: the sample advocate. */
const ADVOCATE_ACCOUNT = 'cust-ada';
const PRODUCT = { sku: 'TRAIL-RUNNER-2', name: 'Trail Runner 2', price: 129.5 };
/** An email address as the order form takes it; the API checks it properly. */
const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}$/;

@ApiExcludeController()
@Controller('demo')
export class DemoShopController {
  constructor(
    @Inject(MERCHANT_LOOKUP) private readonly merchants: MerchantLookup,
    private readonly customers: CustomerQueries,
    private readonly widgets: WidgetQueries,
    private readonly links: ReferralLinkQueries,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The advocate's page: signed in as Ada, with the advocate widget and the newsletter widget. */
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  async home(): Promise<string> {
    const { merchant, advocate } = await this.sample();
    const friendCode = await this.friendCode(merchant.id, advocate.id);
    return this.page({
      title: 'Your account',
      script: `referral('customer', { token: ${scriptValue(this.customerToken(merchant, advocate.id))}, refresh: () => fetch('/sandbox/demo/token').then((r) => r.text()) });`,
      body: `
<p class="note">You are signed in as <strong>Ada Lovelace</strong>, the sandbox's sample advocate. The widget below is the embedded library:
copy Ada's link, share it, or invite friends by email; each share is recorded in the sandbox (<code>GET /sandbox/v2/shares</code>).</p>
<h1>Invite friends, earn rewards</h1>
<div class="grid">
  <div id="referral-advocate" data-referral-widget="referral"></div>
  <section class="panel"><h2>See it as a friend</h2>
    <p>A friend who follows Ada's link lands on the shop with the code in the address; the library keeps it in a first-party cookie and the order is attributed to Ada.</p>
    ${friendCode ? `<a class="button" href="/sandbox/demo/welcome?referral_code=${encodeURIComponent(friendCode)}">Open Ada's link as a friend</a>` : '<p>Ada has no link on the sample widget.</p>'}
  </section>
</div>`,
    });
  }

  /** A fresh customer token for the page's refresh callback (they last ten minutes). */
  @Get('token')
  @Header('content-type', 'text/plain; charset=utf-8')
  @Header('cache-control', 'no-store')
  async token(): Promise<string> {
    const { merchant, advocate } = await this.sample();
    return this.customerToken(merchant, advocate.id);
  }

  /** The landing page a friend arrives on: the product, and the newsletter widget. */
  @Get('welcome')
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  welcome(): string {
    return this.page({
      title: PRODUCT.name,
      script: `referral('ready', (r) => { const a = r.attribution(); document.getElementById('attribution').textContent = a ? 'Referral code ' + a.referral_code + ' is kept until ' + new Date(a.expires_at).toLocaleDateString() + '.' : 'No referral code: this visit is not attributed.'; });`,
      body: `
<p class="note" id="attribution" role="status">Reading the referral code…</p>
<div class="grid">
  <section class="panel product"><div class="picture" role="img" aria-label="A trail running shoe"></div>
    <h1>${html(PRODUCT.name)}</h1><p class="price">$${PRODUCT.price.toFixed(2)}</p>
    <form method="get" action="/sandbox/demo/order">
      <label for="email">Email for the receipt</label>
      <input id="email" name="email" type="email" autocomplete="email" required value="friend@example.com">
      <button class="button" type="submit">Buy now</button>
    </form>
  </section>
  <div id="referral-capture" data-referral-widget="email_capture"></div>
</div>`,
    });
  }

  /**
   * The order confirmation: the shop's server has taken the order and signs its fields into a
   * purchase token; the page reports it, with the visitor's referral code, through the library.
   */
  @Get('order')
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  async order(@Query() query: Record<string, unknown>): Promise<string> {
    const { merchant } = await this.sample();
    const email = typeof query.email === 'string' && EMAIL.test(query.email.trim()) ? query.email.trim() : undefined;
    const orderId = `demo-${randomUUID().slice(0, 8)}`;
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const claims = {
      order_id: orderId,
      payment_amount: PRODUCT.price,
      new_customer: 'yes',
      products: [{ sku: PRODUCT.sku, quantity: 1, price: PRODUCT.price }],
      ...(email ? { email_address: email } : {}),
    };
    const purchaseToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode(merchant.secret_key));
    return this.page({
      title: 'Order confirmed',
      script: `function show(result) {
  const p = result.purchase;
  document.getElementById('result').textContent = result.status === 'already_recorded' ? 'This order was already reported.'
    : p.conversion_id ? 'Purchase ' + p.id + ' recorded and attributed to code ' + p.referral_code + ' (conversion ' + p.conversion_id + ').'
    : 'Purchase ' + p.id + ' recorded, with no referral.';
}
referral('ready', (r) => r.trackPurchase({ purchase_token: ${scriptValue(purchaseToken)} }).then(show, (error) => { document.getElementById('result').textContent = 'Not recorded: ' + error.message; }));`,
      body: `
<h1>Thank you for your order</h1>
<section class="panel"><h2>Order ${html(orderId)}</h2><p>${html(PRODUCT.name)}, $${PRODUCT.price.toFixed(2)}${email ? `, receipt to ${html(email)}` : ''}.</p>
<p id="result" role="status">Reporting the purchase…</p>
<p>The shop's server signed this order into a purchase token with the merchant's secret key; the page passed it on with <code>referral('trackPurchase', …)</code>. A token changed or made up in the browser is refused, and one reported twice records nothing new.</p>
<a class="button" href="/sandbox/demo">Back to Ada's account</a></section>`,
    });
  }

  private page(page: Parameters<typeof demoPage>[0]): string {
    return demoPage(page, { src: `${this.config.mountPath ?? ''}/js/v1/referral.js`, publishableKey: SAMPLE_MERCHANT.publishableKey });
  }

  private async sample(): Promise<{ merchant: MerchantRecord; advocate: { id: number } }> {
    const merchant = await this.merchants.byAccessKey(SAMPLE_MERCHANT.accessKey);
    const advocate = merchant && (await this.customers.byAccountId(merchant.id, ADVOCATE_ACCOUNT));
    if (!merchant || !advocate) throw new NotFoundError(['the sandbox sample data is not there']);
    return { merchant, advocate: { id: advocate.id } };
  }

  private customerToken(merchant: MerchantRecord, customerId: number): string {
    const expiresAt = this.clock.now().getTime() + CUSTOMER_TOKEN_TTL_MS;
    return issueToken(
      { kind: 'customer', merchantId: merchant.id, generation: merchant.token_generation, customerId, expiresAt },
      merchant.secret_key,
      this.config.tokenKeyContext,
    );
  }

  /** Ada's personal link on the first widget the shop offers: the link a friend would follow. */
  private async friendCode(merchantId: number, customerId: number): Promise<string | undefined> {
    for (const widget of await this.widgets.offered(merchantId, MAX_BROWSER_WIDGETS)) {
      if (widget.settings.objective !== 'referral') continue;
      const link = await this.links.personalLinkOf(merchantId, widget.id, { customerId });
      if (link) return link.code;
    }
    return undefined;
  }
}
