/**
 * The OpenAPI document's response schemas against the real responses: representative data is made
 * through the API (with unknown fields left null or out, and the richest records: a purchase with
 * products, its conversion and reward, link parameters, shares with recipients, reminders, coupons),
 * then every v1 and v2 operation is called and each body is validated (ajv) against the schema the
 * document gives for the status it came with. A field a presenter adds, drops or retypes fails here,
 * as does a status the document does not list, and an operation documented without a success schema.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { CUSTOMER_TOKEN_ROUTES, Reply, RequestOptions, Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

const addFormats = addFormatsModule.default;

interface Operation {
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

/**
 * Operations outside the v1 and v2 APIs (admin, operations, trackable links), whose responses are
 * not described by schemas yet. Anything else the document lists must say what its success answers.
 */
const WITHOUT_RESPONSE_SCHEMAS = new Set([
  'GET /health',
  'GET /ready',
  'GET /metrics',
  'GET /l/{code}',
  'GET /admin/merchants/{merchant_id}/as_of',
  'POST /admin/merchants',
  'GET /admin/merchants/{merchant_id}',
  'PATCH /admin/merchants/{merchant_id}',
  'POST /admin/merchants/{merchant_id}/secret_key',
  'POST /admin/merchants/{merchant_id}/widgets',
  'GET /admin/merchants/{merchant_id}/widgets',
  'GET /admin/merchants/{merchant_id}/widgets/{widget_id}',
  'PATCH /admin/merchants/{merchant_id}/widgets/{widget_id}',
  'POST /admin/merchants/{merchant_id}/coupon_banks',
  'GET /admin/merchants/{merchant_id}/coupon_banks',
  'GET /admin/merchants/{merchant_id}/coupon_banks/{bank_id}',
  'POST /admin/merchants/{merchant_id}/coupon_banks/{bank_id}/codes',
  'PUT /admin/merchants/{merchant_id}/referral_links/{code}/blacklist',
  'DELETE /admin/merchants/{merchant_id}/referral_links/{code}/blacklist',
  'POST /admin/merchants/{merchant_id}/vanity_links',
  'GET /admin/merchants/{merchant_id}/outbox',
  'GET /admin/merchants/{merchant_id}/rewards/{reward_id}',
  'POST /admin/merchants/{merchant_id}/rewards/{reward_id}/approve',
  'POST /admin/merchants/{merchant_id}/rewards/{reward_id}/reject',
  'POST /admin/merchants/{merchant_id}/webhook_endpoints',
  'GET /admin/merchants/{merchant_id}/webhook_endpoints',
  'GET /admin/merchants/{merchant_id}/webhook_endpoints/{endpoint_id}',
  'PATCH /admin/merchants/{merchant_id}/webhook_endpoints/{endpoint_id}',
  'DELETE /admin/merchants/{merchant_id}/webhook_endpoints/{endpoint_id}',
  'PUT /admin/merchants/{merchant_id}/client_api',
  'GET /admin/merchants/{merchant_id}/client_api',
  'PUT /admin/merchants/{merchant_id}/custom_headers',
  'GET /admin/merchants/{merchant_id}/custom_headers',
  'GET /admin/merchants/{merchant_id}/webhook_deliveries',
  'GET /admin/merchants/{merchant_id}/webhook_deliveries/{delivery_id}',
  'POST /admin/merchants/{merchant_id}/webhook_deliveries/{delivery_id}/redeliver',
  'GET /admin/sandbox',
  'POST /admin/sandbox/reset',
]);


/** How long to wait for what the service does in the background (reminders, rewards, opt-out jobs), on a busy machine. */
const WAIT_MS = 15_000;

const isApi = (path: string) => path.startsWith('/v1/') || path.startsWith('/v2/');
const isSuccess = (status: string) => /^2\d\d$/.test(status);
const jsonSchema = (op: Operation, status: string) => op.responses[status]?.content?.['application/json']?.schema;

/** Every schema object inside a schema (properties, items, oneOf members), with its path. */
function* subschemas(schema: Record<string, unknown>, at: string): Generator<[string, Record<string, unknown>]> {
  yield [at, schema];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) yield* subschemas(property, `${at}.${name}`);
  if (schema.items) yield* subschemas(schema.items as Record<string, unknown>, `${at}[]`);
  for (const member of (schema.oneOf ?? []) as Record<string, unknown>[]) yield* subschemas(member, `${at}|`);
}

/** Validates every reply against the document and records which operation answered which status. */
class ResponseChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations: { key: string; method: string; pattern: RegExp; op: Operation }[] = [];
  /** Operation key → statuses validated. */
  readonly answered = new Map<string, Set<string>>();

  constructor(
    private readonly service: Service,
    readonly paths: Record<string, Record<string, Operation>>,
  ) {
    addFormats(this.ajv);
    for (const [path, ops] of Object.entries(paths)) {
      if (!isApi(path)) continue;
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries(ops)) this.operations.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), pattern, op });
    }
  }

  get apiOperations() {
    return this.operations;
  }

  private validator(key: string, status: string, schema: Record<string, unknown>): ValidateFunction {
    const id = `${key} ${status}`;
    let validate = this.validators.get(id);
    if (!validate) this.validators.set(id, (validate = this.ajv.compile(schema)));
    return validate;
  }

  /** Sends the request and checks its reply against the document; `expected`: the status it must answer. */
  async call(method: string, url: string, options: RequestOptions = {}, expected?: number): Promise<Reply> {
    const pathname = url.split('?')[0];
    const found = this.operations.find((o) => o.method === method && o.pattern.test(pathname));
    if (!found) throw new Error(`${method} ${pathname} is no operation of the document`);
    const reply = await this.service.request(method, url, options);
    const status = String(reply.status);
    if (expected !== undefined) expect({ request: `${method} ${url}`, status: reply.status, body: reply.body }).toMatchObject({ request: `${method} ${url}`, status: expected });
    const schema = jsonSchema(found.op, status);
    expect({ operation: found.key, status, documented: schema !== undefined }).toEqual({ operation: found.key, status, documented: true });
    const validate = this.validator(found.key, status, schema!);
    const valid = validate(reply.body);
    const problems = valid ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    expect({ request: `${method} ${url}`, status, problems }).toEqual({ request: `${method} ${url}`, status, problems: [] });
    const seen = this.answered.get(found.key) ?? new Set<string>();
    seen.add(status);
    this.answered.set(found.key, seen);
    return reply;
  }
}

describe('OpenAPI response schemas against the real responses', () => {
  let service: Service;
  let m: TestMerchant;
  let plain: TestMerchant;
  let check: ResponseChecker;
  /** A reward validation callback that always fails: its rewards stay pending (retried hourly). */
  let failingCallback: Server;
  let failingUrl: string;
  const v1 = () => ({ auth: m.basic });
  const v2 = () => ({ auth: m.bearer });
  /** Path parameter values of real records, by path template (for the calls made for every operation). */
  const fixture: Record<string, string> = {};

  beforeAll(async () => {
    failingCallback = createServer((_request, response) => response.writeHead(500).end());
    await new Promise<void>((resolve) => failingCallback.listen(0, '127.0.0.1', resolve));
    failingUrl = `http://127.0.0.1:${(failingCallback.address() as AddressInfo).port}/validate`;
    service = await Service.start({ env: { REMINDER_DELAY_MS: '0', SCHEDULER_TICK_MS: '20', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    m = await createMerchant(service, 'Rich shop');
    plain = await createMerchant(service, 'Plain shop');
    // Recipients show in shares only where the merchant may see them (spec §2.3): one merchant each way.
    expect((await service.patch(`/admin/merchants/${m.id}`, { can_see_recipients: true }, service.admin)).status).toBe(200);
    check = new ResponseChecker(service, (await service.get('/docs-json')).body.paths);
  }, 30_000);
  afterAll(async () => {
    await service.stop();
    await new Promise((resolve) => failingCallback.close(resolve));
  });

  it('documents a success schema for every operation (but the listed non-API ones), of objects that say all their fields', () => {
    const undocumented: string[] = [];
    const loose: string[] = [];
    const listed = new Set<string>();
    for (const [path, ops] of Object.entries(check.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        listed.add(key);
        const successes = Object.keys(op.responses).filter(isSuccess);
        const schemas = successes.map((status) => jsonSchema(op, status)).filter((s) => s !== undefined);
        if (WITHOUT_RESPONSE_SCHEMAS.has(key)) continue;
        if (schemas.length === 0 || schemas.length !== successes.length) undocumented.push(key);
        for (const status of Object.keys(op.responses)) {
          const schema = jsonSchema(op, status);
          if (!schema) continue;
          for (const [at, s] of subschemas(schema, `${key} ${status}`)) {
            if (s.$ref !== undefined) loose.push(`${at}: $ref`);
            if (s.nullable === true && s.type === undefined) loose.push(`${at}: nullable without type`);
            if (s.type === 'object' && s.properties !== undefined) {
              if (s.additionalProperties !== false) loose.push(`${at}: additionalProperties is not false`);
              if (!Array.isArray(s.required)) loose.push(`${at}: no required list`);
            }
            if (s.type === undefined && s.oneOf === undefined) loose.push(`${at}: no type`);
          }
        }
      }
    }
    expect(undocumented).toEqual([]);
    expect(loose).toEqual([]);
    // An exemption for an operation that is gone is stale (the sandbox's are there only with the sandbox on).
    expect([...WITHOUT_RESPONSE_SCHEMAS].filter((key) => !listed.has(key) && !key.includes('/admin/sandbox'))).toEqual([]);
    // Every v1 and v2 operation documents its errors on 400 and 401 at least.
    const withoutErrors = check.apiOperations.filter(({ op }) => !jsonSchema(op, '400') || !jsonSchema(op, '401')).map((o) => o.key);
    expect(withoutErrors).toEqual([]);
  });

  it('answers every v1 and v2 operation as documented, for the richest records and for null or absent fields', async () => {
    const c = check;
    const admin = service.admin;

    // Widgets: a cash reward, no reward at all (null reward fields), chargebee_credit (v1: "other"), and one whose
    // rewards wait for a validation callback that keeps failing (pending, evaluated_at null).
    const widget = await createWidget(service, m, { name: 'Give $10', published: true });
    const noReward = await createWidget(service, m, { name: 'No reward', reward_type: null, reward_amount: null, destination_url: null });
    const chargebee = await createWidget(service, m, { name: 'Credit', reward_type: 'chargebee_credit', reward_amount: 7 });
    const validated = await createWidget(service, m, { name: 'Validated', reward_validation_url: failingUrl });
    const plainWidget = await createWidget(service, plain, { name: 'Plain' });
    await c.call('GET', '/v1/campaigns', v1(), 200);
    await c.call('GET', '/v2/widgets', v2(), 200);
    await c.call('GET', `/v2/widgets/${widget.id}`, v2(), 200);
    await c.call('GET', `/v2/widgets/${noReward.id}`, v2(), 200);

    // Customers: every field set, and an account id alone.
    const full = (
      await c.call(
        'POST',
        '/v2/customers',
        { ...v2(), body: { account_id: 'acc-full', email_address: 'ann@example.com', first_name: 'Ann', last_name: 'Lee', stripe_customer_id: 'cus_1', chargebee_customer_id: 'cb_1' } },
        201,
      )
    ).body.customer;
    await c.call('POST', '/v2/customers', { ...v2(), body: { account_id: 'acc-full', first_name: 'Annie' } }, 200);
    const bare = (await c.call('POST', '/v2/customers', { ...v2(), body: { account_id: 'acc-bare' } }, 201)).body.customer;
    const buyer = (await c.call('POST', '/v2/customers', { ...v2(), body: { account_id: 'acc-buyer', email_address: 'buyer@example.com', first_name: 'Bo' } }, 201)).body.customer;

    // v1 referral codes: a customer PURL with parameters, an email PURL (no customer), coupons from a bank and by code.
    expect((await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Friends', codes: ['FRIEND-1', 'FRIEND-2', 'SOLO-1'] }, admin)).status).toBe(201);
    const bank = (await service.get(`/admin/merchants/${m.id}/coupon_banks`, admin)).body.coupon_banks[0];
    const customerCode = (
      await c.call(
        'POST',
        '/v1/referral_codes',
        { ...v1(), body: { campaign: { id: widget.id }, customer: { id: 'acc-full', email: 'ann@example.com' }, parameters: { utm_source: 'mail', n: 2, on: true }, coupon_bank_id: bank.id } },
        200,
      )
    ).body;
    expect(customerCode.coupon_codes).toHaveLength(1);
    const emailCode = (await c.call('POST', '/v1/referral_codes', { ...v1(), body: { campaign: { id: widget.id }, email: 'solo@example.com', coupon_code: 'SOLO-1' } }, 200)).body;
    expect(emailCode.customer).toBeNull();
    await c.call('POST', '/v1/referral_codes', { ...v1(), body: { campaign: { id: noReward.id }, customer: { id: 'acc-bare' } } }, 200);

    // v2 personal links: customer PURL with parameters, email PURL, a vanity link (admin), one on each other widget.
    const purl = (
      await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: widget.id, customer_id: bare.id, link_parameters: { campaign: 'spring' } } }, 201)
    ).body.referral_link;
    const emailPurl = (await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: widget.id, email_address: 'eve@example.com' } }, 201)).body.referral_link;
    const noRewardPurl = (await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: noReward.id, customer_id: full.id } }, 201)).body.referral_link;
    const chargebeePurl = (await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: chargebee.id, customer_id: full.id } }, 201)).body.referral_link;
    const validatedPurl = (await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: validated.id, email_address: 'val@example.com' } }, 201)).body.referral_link;
    expect((await service.post(`/admin/merchants/${m.id}/vanity_links`, { widget_id: chargebee.id, code: 'vanity-eve', email_address: 'eve@example.com' }, admin)).status).toBe(201);
    await c.call('GET', '/v2/referral_links/vanity-eve', v2(), 200);
    await c.call('PATCH', `/v2/personal_referral_links/${purl.code}`, { ...v2(), body: { link_parameters: { campaign: 'summer', n: 1 } } }, 200);
    await c.call('PATCH', `/v2/personal_referral_links/${emailPurl.code}`, { ...v2(), body: { link_parameters: null } }, 200);
    await c.call('GET', '/v2/personal_referral_links', v2(), 200);
    await c.call('GET', `/v2/referral_links/${purl.code}`, v2(), 200);
    await c.call('GET', `/v2/referral_links/${emailPurl.code}`, v2(), 200);

    // Shares: every field (recipients shown), the fewest, v1's, and one of a merchant that may not see recipients.
    const share = (
      await c.call(
        'POST',
        '/v2/shares',
        {
          ...v2(),
          body: {
            widget_id: widget.id,
            customer_id: full.id,
            reward_email_address: 'ann@example.com',
            email_recipients: ['fred@example.com', 'gina@example.com'],
            message: 'You will like this',
            newsletter_opt_in: true,
            send_reminder: true,
            ip_address: '203.0.113.5',
            link_parameters: { channel: 'mail' },
          },
        },
        201,
      )
    ).body.share;
    expect(share.email_recipients).toEqual(['fred@example.com', 'gina@example.com']);
    const bareShare = (await c.call('POST', '/v2/shares', { ...v2(), body: { widget_id: noReward.id, reward_email_address: 'zed@example.com', email_recipients: ['hal@example.com'], send_reminder: true } }, 201)).body.share;
    const v1Share = (
      await c.call(
        'POST',
        '/v1/shares',
        { ...v1(), body: { campaign_id: widget.id, customer_id: bare.id, reward_email_address: 'bare@example.com', email_recipients: ['ida@example.com'], message: 'Hi' } },
        201,
      )
    ).body;
    const plainShare = (
      await c.call('POST', '/v2/shares', { auth: plain.bearer, body: { widget_id: plainWidget.id, reward_email_address: 'p@example.com', email_recipients: ['q@example.com'] } }, 201)
    ).body.share;
    expect(plainShare).not.toHaveProperty('email_recipients');
    await c.call('GET', '/v2/shares', { auth: plain.bearer }, 200);
    await c.call('GET', `/v2/shares/${plainShare.id}`, { auth: plain.bearer }, 200);
    await c.call('GET', '/v1/shares', { auth: plain.basic }, 200);
    await c.call('GET', `/v1/shares/${plainShare.id}`, { auth: plain.basic }, 200);
    await c.call('GET', '/v2/shares', v2(), 200);
    await c.call('GET', `/v2/shares/${share.id}`, v2(), 200);
    await c.call('GET', `/v2/shares/${bareShare.id}`, v2(), 200);
    await c.call('GET', '/v1/shares', v1(), 200);
    await c.call('GET', `/v1/shares/${v1Share.id}`, v1(), 200);
    const shareCode = share.referral_link.split('/').pop() as string;
    await c.call('GET', `/v2/referral_links/${shareCode}`, v2(), 200);

    // The reminders of the two shares (REMINDER_DELAY_MS=0), with and without a customer: v1 and v2, and the referral link of one.
    const reminders = await eventually(async () => {
      const list = (await c.call('GET', '/v2/reminder_emails', v2(), 200)).body;
      expect(list.results).toHaveLength(2);
      return list.results as { id: number; share: string; referral_link: string }[];
    }, WAIT_MS);
    for (const r of reminders) {
      await c.call('GET', `/v2/reminder_emails/${r.id}`, v2(), 200);
      await c.call('GET', `/v1/reminder_emails/${r.id}`, v1(), 200);
    }
    await c.call('GET', '/v1/reminder_emails', v1(), 200);
    const reminder = reminders.find((r) => r.share.endsWith(`/${share.id}`))!;
    const reminderCode = reminder.referral_link.split('/').pop() as string;
    await c.call('GET', `/v2/referral_links/${reminderCode}`, v2(), 200);

    // Email captures: every field, and the fewest.
    const capture = (
      await c.call(
        'POST',
        '/v2/email_captures',
        { ...v2(), body: { widget_id: widget.id, email_address: 'cap@example.com', newsletter_opt_in: true, referral_code: purl.code, ip_address: '2001:db8::1' } },
        201,
      )
    ).body.email_capture;
    const bareCapture = (await c.call('POST', '/v2/email_captures', { ...v2(), body: { widget_id: noReward.id, email_address: 'cap2@example.com' } }, 201)).body.email_capture;
    await c.call('GET', '/v2/email_captures', v2(), 200);
    await c.call('GET', `/v2/email_captures/${capture.id}`, v2(), 200);
    await c.call('GET', `/v2/email_captures/${bareCapture.id}`, v2(), 200);

    // Purchases: the richest (code, coupon, products, customer, widget: a conversion and an approved reward),
    // the fewest (nulls, no coupon_code, no conversion), one by coupon, one rejected (same email), and conversions
    // through a share, a reminder, a widget without reward and a chargebee_credit widget.
    const rich = (
      await c.call(
        'POST',
        '/v2/purchases',
        {
          ...v2(),
          body: {
            order_id: 'ORD-RICH',
            payment_amount: 129.5,
            new_customer: 'yes',
            coupon_code: 'SOLO-1',
            referral_code: purl.code,
            email_address: 'buyer@example.com',
            ip_address: '198.51.100.7',
            referrer: 'https://blog.example/post',
            customer_id: buyer.id,
            widget_id: widget.id,
            products: [
              { sku: 'TENT-2P', quantity: 1, price: 99.5 },
              { sku: 'PEG', quantity: 10, price: 3 },
            ],
          },
        },
        201,
      )
    ).body.purchase;
    expect(rich).toHaveProperty('coupon_code', 'SOLO-1');
    const minimal = (await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-MIN' } }, 201)).body.purchase;
    expect(minimal).not.toHaveProperty('coupon_code');
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-COUPON', coupon_code: 'SOLO-1', new_customer: 'no', email_address: 'kim@example.com' } }, 201);
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-SAME', referral_code: emailPurl.code, email_address: 'eve@example.com', payment_amount: 5 } }, 201);
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-SHARE', referral_code: shareCode, email_address: 'fred@example.com', payment_amount: 20 } }, 201);
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-REMIND', referral_code: reminderCode, email_address: 'gina@example.com' } }, 201);
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-NOREWARD', referral_code: noRewardPurl.code, payment_amount: 1 } }, 201);
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-CB', referral_code: chargebeePurl.code, payment_amount: 70 } }, 201);
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-PENDING', referral_code: validatedPurl.code, payment_amount: 3 } }, 201);
    // Purchases that nothing converts: no widget, no conversion.
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-LONE', new_customer: 'unknown' } }, 201);
    await c.call('POST', '/v1/purchases', { ...v1(), body: { order_id: 'V1-LONE', new_customer: 'no' } }, 201);
    const v1Rich = (
      await c.call(
        'POST',
        '/v1/purchases',
        {
          ...v1(),
          body: { order_id: 'V1-RICH', campaign_id: widget.id, referral_code: customerCode.referral_code, customer_id: buyer.id, payment_amount: 10, products: [{ sku: 'A', quantity: 2, price: 5 }] },
        },
        201,
      )
    ).body;
    const v1Minimal = (await c.call('POST', '/v1/purchases', { ...v1(), body: { order_id: 'V1-MIN' } }, 201)).body;
    // Conversions made afterwards, of purchases recorded without a code.
    const converted = (await c.call('POST', '/v2/conversions', { ...v2(), body: { purchase_id: minimal.id, referral_code: purl.code } }, 201)).body.conversion;
    const bankCoupon = customerCode.coupon_codes[0] as string;
    const v1Converted = (await c.call('POST', '/v1/conversions', { ...v1(), body: { purchase_id: v1Minimal.id, coupon_code: bankCoupon } }, 201)).body;
    expect(v1Converted.coupon_code).toBe(bankCoupon);

    const conversions = await eventually(async () => {
      const list = (await c.call('GET', '/v2/conversions?limit=100', v2(), 200)).body;
      expect(list.results_count).toBe(11);
      return list.results as { id: number; channel: string }[];
    }, WAIT_MS);
    expect(new Set(conversions.map((x) => x.channel))).toEqual(new Set(['personal_url', 'email', 'reminder_email']));
    const rewards = await eventually(async () => {
      const list = (await c.call('GET', '/v2/rewards?limit=100', v2(), 200)).body;
      // Every conversion but the one on the widget without a reward; all decided but the one awaiting its callback.
      expect(list.results_count).toBe(10);
      expect(list.results.filter((r: { status: string }) => r.status === 'pending')).toHaveLength(1);
      return list.results as { id: number; status: string }[];
    }, WAIT_MS);
    expect(new Set(rewards.map((r) => r.status))).toEqual(new Set(['approved', 'rejected', 'pending']));
    for (const r of rewards) {
      await c.call('GET', `/v2/rewards/${r.id}`, v2(), 200);
      await c.call('GET', `/v1/rewards/${r.id}`, v1(), 200);
    }
    for (const x of conversions) {
      await c.call('GET', `/v2/conversions/${x.id}`, v2(), 200);
      await c.call('GET', `/v1/conversions/${x.id}`, v1(), 200);
    }
    await c.call('GET', '/v1/rewards?limit=100', v1(), 200);
    await c.call('GET', '/v1/conversions?limit=100', v1(), 200);
    await c.call('GET', `/v2/conversions/${converted.id}`, v2(), 200);
    for (const p of [rich, minimal]) await c.call('GET', `/v2/purchases/${p.id}`, v2(), 200);
    for (const p of [v1Rich, v1Minimal]) await c.call('GET', `/v1/purchases/${p.id}`, v1(), 200);
    await c.call('GET', '/v1/purchases?limit=100', v1(), 200);
    // A page with a next_page, and the page it names.
    const first = (await c.call('GET', '/v2/purchases?limit=2', v2(), 200)).body;
    expect(first.next_page).toEqual(expect.any(String));
    await c.call('GET', (first.next_page as string).slice(service.url.length), v2(), 200);

    // Coupons: of a customer PURL (customer linked) and of an email PURL (no customer).
    const coupons = (await c.call('GET', '/v2/coupons', v2(), 200)).body;
    expect(coupons.results_count).toBe(2);
    await c.call('GET', '/v1/coupons', v1(), 200);

    // v1 customers, now with recent shares and referral codes.
    await c.call('GET', '/v1/customers', v1(), 200);
    for (const customer of [full, bare, buyer]) await c.call('GET', `/v1/customers/${customer.id}`, v1(), 200);
    await c.call('GET', '/v1/customer_info?account_id=acc-full', v1(), 200);
    await c.call('GET', '/v1/customer_info?email=BUYER@example.com', v1(), 200);
    await c.call('GET', '/v2/customers', v2(), 200);
    await c.call('GET', `/v2/customers/${buyer.id}`, v2(), 200);
    await c.call('GET', `/v2/customers/${bare.id}`, v2(), 200);

    // Email opt-outs: jobs (processing or completed), the list, removal.
    const job = (await c.call('POST', '/v2/email_opt_out_jobs', { ...v2(), body: { email_addresses: ['out1@example.com', 'OUT2@example.com'] } }, 202)).body.email_opt_out_job;
    const v1Job = (await c.call('POST', '/v1/email_opt_out_jobs', { ...v1(), body: { email_addresses: ['out3@example.com'] } }, 202)).body;
    await eventually(async () => expect((await c.call('GET', `/v2/email_opt_out_jobs/${job.id}`, v2(), 200)).body.email_opt_out_job.status).toBe('completed'), WAIT_MS);
    await eventually(async () => expect((await c.call('GET', `/v1/email_opt_out_jobs/${v1Job.id}`, v1(), 200)).body.status).toBe('completed'), WAIT_MS);
    await c.call('GET', '/v2/email_opt_outs', v2(), 200);
    await c.call('GET', '/v1/email_opt_outs', v1(), 200);
    await c.call('DELETE', '/v2/email_opt_outs/out1%40example.com', v2(), 200);
    await c.call('DELETE', '/v1/email_opt_outs/out3%40example.com', v1(), 200);

    // The audit trail: a page with next_page, and one entity's history.
    await c.call('GET', '/v2/audit/events?limit=5', v2(), 200);
    await c.call('GET', `/v2/audit/entities/customer:${full.id}`, v2(), 200);
    await c.call('GET', `/v2/audit/entities/purchase:${rich.id}`, v2(), 200);

    // Tokens, and the routes a customer token may call.
    await c.call('POST', '/v2/tokens/merchant', { body: { access_key: m.accessKey, secret_key: m.secretKey } }, 200);
    const customerToken = `Bearer ${(await c.call('POST', '/v2/tokens/customer', { ...v2(), body: { customer_id: full.id } }, 200)).body.token}`;
    const asCustomer = { auth: customerToken };
    await c.call('GET', '/v2/shares', asCustomer, 200);
    await c.call('GET', '/v2/conversions', asCustomer, 200);
    await c.call('GET', '/v2/rewards', asCustomer, 200);
    await c.call('GET', '/v2/coupons', asCustomer, 200);
    await c.call('GET', '/v2/personal_referral_links', asCustomer, 200);
    await c.call('POST', '/v2/personal_referral_links', { ...asCustomer, body: { widget_id: widget.id } }, 201);
    await c.call('POST', '/v2/shares', { ...asCustomer, body: { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['jo@example.com'] } }, 201);

    Object.assign(fixture, {
      '/v1/customers/{id}': String(full.id),
      '/v1/shares/{id}': String(v1Share.id),
      '/v1/reminder_emails/{id}': String(reminder.id),
      '/v1/purchases/{id}': String(v1Rich.id),
      '/v1/conversions/{id}': String(converted.id),
      '/v1/rewards/{id}': String(rewards[0].id),
      '/v1/email_opt_out_jobs/{id}': String(v1Job.id),
      '/v1/email_opt_outs/{email_address}': 'out2@example.com',
      '/v2/widgets/{id}': String(widget.id),
      '/v2/customers/{id}': String(full.id),
      '/v2/referral_links/{code}': purl.code,
      '/v2/personal_referral_links/{code}': purl.code,
      '/v2/shares/{id}': String(share.id),
      '/v2/reminder_emails/{id}': String(reminder.id),
      '/v2/email_captures/{id}': String(capture.id),
      '/v2/purchases/{id}': String(rich.id),
      '/v2/conversions/{id}': String(converted.id),
      '/v2/rewards/{id}': String(rewards[0].id),
      '/v2/email_opt_out_jobs/{id}': String(job.id),
      '/v2/email_opt_outs/{email_address}': 'out2@example.com',
      '/v2/audit/entities/{entity}': `customer:${full.id}`,
    });

    // Conflicts (409): a used order_id, a converted purchase, a coupon another referral code holds.
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-RICH' } }, 409);
    await c.call('POST', '/v1/purchases', { ...v1(), body: { order_id: 'V1-RICH' } }, 409);
    await c.call('POST', '/v2/conversions', { ...v2(), body: { purchase_id: rich.id, referral_code: purl.code } }, 409);
    await c.call('POST', '/v1/conversions', { ...v1(), body: { purchase_id: v1Rich.id, referral_code: purl.code } }, 409);
    await c.call('POST', '/v1/referral_codes', { ...v1(), body: { campaign: { id: widget.id }, email: 'other@example.com', coupon_code: 'SOLO-1' } }, 409);
    // Unknown ids named in a body (404), and bodies with structured reports (400).
    await c.call('POST', '/v2/purchases', { ...v2(), body: { order_id: 'ORD-404', widget_id: 999_999_999 } }, 404);
    await c.call('POST', '/v1/referral_codes', { ...v1(), body: { campaign: { id: 999_999_999 }, email: 'x@example.com' } }, 404);
    await c.call('POST', '/v2/tokens/customer', { ...v2(), body: { customer_id: 999_999_999 } }, 404);
    await c.call('POST', '/v2/conversions', { ...v2(), body: { purchase_id: 999_999_999, referral_code: purl.code } }, 404);
    await c.call('POST', '/v2/shares', { ...v2(), body: { widget_id: widget.id, reward_email_address: 'not-an-address', email_recipients: 'x', bogus: 1 } }, 400);
    await c.call('GET', '/v2/purchases?limit=0', v2(), 400);
    await c.call('GET', '/v1/purchases?offset=-1', v1(), 400);
  }, 60_000);

  it('answers the documented error body on the statuses each operation documents: 400, 401, 403 and 404', async () => {
    const c = check;
    expect(Object.keys(fixture).length).toBeGreaterThan(0);
    const customerId = Number(fixture['/v2/customers/{id}']);
    const customerToken = `Bearer ${(await service.post('/v2/tokens/customer', { customer_id: customerId }, { auth: m.bearer })).body.token}`;
    const pathOf = (template: string, value?: string) => template.replace(/\{[^}]+\}/, encodeURIComponent(value ?? fixture[template]));
    const credentials = (path: string) => ({ auth: path.startsWith('/v1/') ? m.basic : m.bearer });
    const unknown: Record<string, string> = { id: '999999999999', code: 'nosuchcode', email_address: 'nobody@example.com', entity: 'customer:999999999999' };

    for (const { key, method, op } of c.apiOperations) {
      const template = key.slice(method.length + 1);
      const withParam = template.includes('{');
      if (withParam) expect({ key, fixture: fixture[template] !== undefined }).toEqual({ key, fixture: true });
      const path = withParam ? pathOf(template) : template;
      const body = op.requestBody ? {} : undefined;

      // 401: no credentials (the token exchange: keys that are not a merchant's).
      if (key === 'POST /v2/tokens/merchant') await c.call(method, path, { body: { access_key: 'ak_nobody', secret_key: 'sk_nobody' } }, 401);
      else await c.call(method, path, { body }, 401);

      // 400: a query parameter the route does not take (before anything is read or written).
      await c.call(method, `${path}?bogus=1`, { ...credentials(path), body }, 400);

      // 400: a body missing its required properties.
      if (op.requestBody && key !== 'PATCH /v2/personal_referral_links/{code}') {
        await c.call(method, path, { ...(key === 'POST /v2/tokens/merchant' ? {} : credentials(path)), body: {} }, 400);
      }

      // 404: an id that is not there.
      if (withParam) {
        const name = /\{([^}]+)\}/.exec(template)![1];
        const patch = key === 'PATCH /v2/personal_referral_links/{code}' ? { link_parameters: { a: 'b' } } : body;
        await c.call(method, pathOf(template, unknown[name]), { ...credentials(path), body: patch }, 404);
      }

      // 403: a customer token outside spec §5.2 rule 4.
      if (template.startsWith('/v2/') && key !== 'POST /v2/tokens/merchant' && !CUSTOMER_TOKEN_ROUTES.has(key)) {
        await c.call(method, path, { auth: customerToken, body }, 403);
      }
    }
  }, 60_000);

  it('revokes the merchant tokens (DELETE /v2/tokens/merchant)', async () => {
    await check.call('DELETE', '/v2/tokens/merchant', { auth: plain.bearer, body: { access_key: plain.accessKey, secret_key: plain.secretKey } }, 200);
    expect((await service.get('/v2/widgets', { auth: plain.bearer })).status).toBe(401);
  });

  it('has called every documented success status of every v1 and v2 operation, and an error of each', () => {
    const missing: string[] = [];
    for (const { key, op } of check.apiOperations) {
      const answered = check.answered.get(key) ?? new Set<string>();
      for (const status of Object.keys(op.responses).filter(isSuccess)) if (!answered.has(status)) missing.push(`${key} ${status}`);
      if (![...answered].some((status) => /^4/.test(status))) missing.push(`${key} (no error)`);
    }
    expect(missing).toEqual([]);
    expect(check.apiOperations.length).toBeGreaterThanOrEqual(58);
  });
});
