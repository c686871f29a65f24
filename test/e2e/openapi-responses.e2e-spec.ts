/**
 * The OpenAPI document's response schemas against the real responses: representative data is made
 * through the API (with unknown fields left null or out, and the richest records: a purchase with
 * products, its conversion and reward, link parameters, shares with recipients, reminders, coupons),
 * then every operation of the document is called (v1, v2, the admin API, the probes, metrics and
 * trackable links) and each answer is checked against what the document gives for its status: a
 * JSON body validated (ajv) against the schema, a text body (metrics) by its content type, and an
 * answer documented without a body (204, the 302 of /l) for having none, with its documented headers.
 * A field a presenter adds, drops or retypes fails here, as does a status the document does not
 * list, and an operation documented without a success schema.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SignJWT } from 'jose';
import { CUSTOMER_TOKEN_ROUTES, Reply, RequestOptions, Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

const addFormats = addFormatsModule.default;

interface Response {
  content?: Record<string, { schema?: Record<string, unknown> }>;
  headers?: Record<string, unknown>;
}

interface Operation {
  requestBody?: unknown;
  responses: Record<string, Response>;
}

/** How long to wait for what the service does in the background (reminders, rewards, opt-out jobs, webhooks), on a busy machine. */
const WAIT_MS = 15_000;

const METRICS_TOKEN = 'test-metrics-token';

const isApi = (path: string) => path.startsWith('/v1/') || path.startsWith('/v2/');
const isAdmin = (path: string) => path.startsWith('/admin/');
/** The answers an operation is for: 2xx, and the redirect of a trackable link. */
const isSuccess = (status: string) => /^[23]\d\d$/.test(status);
/** Answers without a body: 204, and redirects (their Location is the answer). */
const withoutBody = (status: string) => status === '204' || /^3\d\d$/.test(status);
const jsonSchema = (op: Operation, status: string) => op.responses[status]?.content?.['application/json']?.schema;
/** A content type without its parameters (`application/json; charset=utf-8` → `application/json`). */
const mediaType = (contentType: string | null) => (contentType ?? '').split(';')[0].trim().toLowerCase();

/**
 * Why a documented success answer says too little, or null: a JSON body with its schema, text
 * (metrics) as a string, or no body at all for a 204 or a redirect (whose Location is documented).
 */
function successFault(status: string, response: Response): string | null {
  const media = Object.keys(response.content ?? {});
  if (media.length === 0) {
    if (!withoutBody(status)) return 'no body documented';
    if (/^3/.test(status) && !response.headers?.Location) return 'a redirect without its Location header';
    return null;
  }
  if (media.length > 1) return `several content types: ${media.join(', ')}`;
  const schema = response.content![media[0]].schema;
  if (media[0] === 'application/json') return schema ? null : 'a JSON body without a schema';
  if (media[0] === 'text/plain') return schema?.type === 'string' ? null : 'text without a string schema';
  return `content type ${media[0]}`;
}

/** Every schema object inside a schema (properties, items, oneOf members), with its path. */
function* subschemas(schema: Record<string, unknown>, at: string): Generator<[string, Record<string, unknown>]> {
  yield [at, schema];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>))
    yield* subschemas(property, `${at}.${name}`);
  if (schema.items) yield* subschemas(schema.items as Record<string, unknown>, `${at}[]`);
  for (const member of (schema.oneOf ?? []) as Record<string, unknown>[]) yield* subschemas(member, `${at}|`);
}

/** Validates every reply against the document and records which operation answered which status. */
class ResponseChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  readonly operations: { key: string; method: string; path: string; pattern: RegExp; op: Operation }[] = [];
  /** Operation key → statuses validated. */
  readonly answered = new Map<string, Set<string>>();
  /** Operation key → the first request it answered with success (for the admin routes' error calls). */
  readonly samples = new Map<string, { url: string; body: unknown }>();

  constructor(
    private readonly service: Service,
    readonly paths: Record<string, Record<string, Operation>>,
  ) {
    addFormats(this.ajv);
    for (const [path, ops] of Object.entries(paths)) {
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries(ops))
        this.operations.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, pattern, op });
    }
  }

  get apiOperations() {
    return this.operations.filter((o) => isApi(o.path));
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
    const request = `${method} ${url}`;
    if (expected !== undefined) expect({ request, status: reply.status, body: reply.body ?? reply.text }).toMatchObject({ request, status: expected });
    const response = found.op.responses[status];
    expect({ operation: found.key, status, documented: response !== undefined }).toEqual({ operation: found.key, status, documented: true });
    const media = Object.keys(response.content ?? {});
    if (media.length === 0) {
      // Documented without a body: none comes, and the headers it documents do.
      const headers = Object.keys(response.headers ?? {}).filter((name) => reply.headers.get(name) === null);
      expect({ request, status, text: reply.text, missingHeaders: headers }).toEqual({ request, status, text: '', missingHeaders: [] });
    } else {
      const type = mediaType(reply.headers.get('content-type'));
      expect({ request, status, type, documented: media.includes(type) }).toEqual({ request, status, type, documented: true });
      const validate = this.validator(found.key, status, response.content![type].schema!);
      const valid = validate(type === 'application/json' ? reply.body : reply.text);
      const problems = valid
        ? []
        : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      expect({ request, status, problems }).toEqual({ request, status, problems: [] });
    }
    const seen = this.answered.get(found.key) ?? new Set<string>();
    seen.add(status);
    this.answered.set(found.key, seen);
    if (/^2/.test(status) && !this.samples.has(found.key)) this.samples.set(found.key, { url, body: options.body });
    return reply;
  }
}

describe('OpenAPI response schemas against the real responses', () => {
  let service: Service;
  let m: TestMerchant;
  let plain: TestMerchant;
  let check: ResponseChecker;
  /** A reward validation callback that always fails: its rewards stay pending (retried hourly). Also a webhook endpoint that fails. */
  let failingCallback: Server;
  let failingUrl: string;
  /** A webhook endpoint that takes every delivery. */
  let receiver: Server;
  let receiverUrl: string;
  const v1 = () => ({ auth: m.basic });
  const v2 = () => ({ auth: m.bearer });
  /** Path parameter values of real records, by path template (for the calls made for every operation). */
  const fixture: Record<string, string> = {};

  const listen = async (server: Server, path: string) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  };

  beforeAll(async () => {
    failingCallback = createServer((_request, response) => response.writeHead(500).end());
    failingUrl = await listen(failingCallback, '/validate');
    receiver = createServer((_request, response) => response.writeHead(200).end());
    receiverUrl = await listen(receiver, '/hooks');
    // The sandbox on, so that the document lists its admin routes and they are called too.
    service = await Service.start({
      sandbox: true,
      // The browser routes' limits low enough to reach their 429 (called last of them).
      env: {
        REMINDER_DELAY_MS: '0',
        SCHEDULER_TICK_MS: '20',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        METRICS_TOKEN,
        BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS: '80',
        BROWSER_CAPTURES_PER_MINUTE_PER_ADDRESS: '2',
      },
    });
    m = await createMerchant(service, 'Rich shop');
    plain = await createMerchant(service, 'Plain shop');
    // Recipients show in shares only where the merchant may see them (spec §2.3): one merchant each way.
    expect((await service.patch(`/admin/merchants/${m.id}`, { can_see_recipients: true }, service.admin)).status).toBe(200);
    check = new ResponseChecker(service, (await service.get('/docs-json')).body.paths);
  }, 30_000);
  afterAll(async () => {
    await service.stop();
    await new Promise((resolve) => failingCallback.close(resolve));
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('documents what every operation answers on success, and its errors, with objects that say all their fields', () => {
    const undocumented: string[] = [];
    const loose: string[] = [];
    const errorsWithoutBody: string[] = [];
    for (const { key, op } of check.operations) {
      const successes = Object.keys(op.responses).filter(isSuccess);
      if (successes.length === 0) undocumented.push(`${key}: no success status`);
      for (const status of successes) {
        const fault = successFault(status, op.responses[status]);
        if (fault) undocumented.push(`${key} ${status}: ${fault}`);
      }
      for (const status of Object.keys(op.responses)) {
        // Every error is the one error body (spec §7).
        if (!isSuccess(status) && !jsonSchema(op, status)) errorsWithoutBody.push(`${key} ${status}`);
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
    expect(undocumented).toEqual([]);
    expect(loose).toEqual([]);
    expect(errorsWithoutBody).toEqual([]);
    // Every v1 and v2 operation documents its errors on 400 and 401 at least; every admin one on 400
    // (a query it does not take), 401 (the admin token) and 404 (the admin API off, at least).
    const withoutErrors = check.apiOperations.filter(({ op }) => !jsonSchema(op, '400') || !jsonSchema(op, '401')).map((o) => o.key);
    expect(withoutErrors).toEqual([]);
    const adminWithoutErrors = check.operations
      .filter(({ path, op }) => isAdmin(path) && ['400', '401', '404'].some((status) => !jsonSchema(op, status)))
      .map((o) => o.key);
    expect(adminWithoutErrors).toEqual([]);
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
        {
          ...v2(),
          body: {
            account_id: 'acc-full',
            email_address: 'ann@example.com',
            first_name: 'Ann',
            last_name: 'Lee',
            stripe_customer_id: 'cus_1',
            chargebee_customer_id: 'cb_1',
          },
        },
        201,
      )
    ).body.customer;
    await c.call('POST', '/v2/customers', { ...v2(), body: { account_id: 'acc-full', first_name: 'Annie' } }, 200);
    const bare = (await c.call('POST', '/v2/customers', { ...v2(), body: { account_id: 'acc-bare' } }, 201)).body.customer;
    const buyer = (
      await c.call('POST', '/v2/customers', { ...v2(), body: { account_id: 'acc-buyer', email_address: 'buyer@example.com', first_name: 'Bo' } }, 201)
    ).body.customer;

    // v1 referral codes: a customer PURL with parameters, an email PURL (no customer), coupons from a bank and by code.
    const bank = (
      await c.call('POST', `/admin/merchants/${m.id}/coupon_banks`, { ...admin, body: { name: 'Friends', codes: ['FRIEND-1', 'FRIEND-2', 'SOLO-1'] } }, 201)
    ).body.coupon_bank;
    const customerCode = (
      await c.call(
        'POST',
        '/v1/referral_codes',
        {
          ...v1(),
          body: {
            campaign: { id: widget.id },
            customer: { id: 'acc-full', email: 'ann@example.com' },
            parameters: { utm_source: 'mail', n: 2, on: true },
            coupon_bank_id: bank.id,
          },
        },
        200,
      )
    ).body;
    expect(customerCode.coupon_codes).toHaveLength(1);
    const emailCode = (
      await c.call('POST', '/v1/referral_codes', { ...v1(), body: { campaign: { id: widget.id }, email: 'solo@example.com', coupon_code: 'SOLO-1' } }, 200)
    ).body;
    expect(emailCode.customer).toBeNull();
    await c.call('POST', '/v1/referral_codes', { ...v1(), body: { campaign: { id: noReward.id }, customer: { id: 'acc-bare' } } }, 200);

    // v2 personal links: customer PURL with parameters, email PURL, a vanity link (admin), one on each other widget.
    const purl = (
      await c.call(
        'POST',
        '/v2/personal_referral_links',
        { ...v2(), body: { widget_id: widget.id, customer_id: bare.id, link_parameters: { campaign: 'spring' } } },
        201,
      )
    ).body.referral_link;
    const emailPurl = (await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: widget.id, email_address: 'eve@example.com' } }, 201))
      .body.referral_link;
    const noRewardPurl = (await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: noReward.id, customer_id: full.id } }, 201)).body
      .referral_link;
    const chargebeePurl = (await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: chargebee.id, customer_id: full.id } }, 201)).body
      .referral_link;
    const validatedPurl = (
      await c.call('POST', '/v2/personal_referral_links', { ...v2(), body: { widget_id: validated.id, email_address: 'val@example.com' } }, 201)
    ).body.referral_link;
    await c.call(
      'POST',
      `/admin/merchants/${m.id}/vanity_links`,
      { ...admin, body: { widget_id: chargebee.id, code: 'vanity-eve', email_address: 'eve@example.com' } },
      201,
    );
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
    const bareShare = (
      await c.call(
        'POST',
        '/v2/shares',
        { ...v2(), body: { widget_id: noReward.id, reward_email_address: 'zed@example.com', email_recipients: ['hal@example.com'], send_reminder: true } },
        201,
      )
    ).body.share;
    const v1Share = (
      await c.call(
        'POST',
        '/v1/shares',
        {
          ...v1(),
          body: {
            campaign_id: widget.id,
            customer_id: bare.id,
            reward_email_address: 'bare@example.com',
            email_recipients: ['ida@example.com'],
            message: 'Hi',
          },
        },
        201,
      )
    ).body;
    const plainShare = (
      await c.call(
        'POST',
        '/v2/shares',
        { auth: plain.bearer, body: { widget_id: plainWidget.id, reward_email_address: 'p@example.com', email_recipients: ['q@example.com'] } },
        201,
      )
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
        {
          ...v2(),
          body: { widget_id: widget.id, email_address: 'cap@example.com', newsletter_opt_in: true, referral_code: purl.code, ip_address: '2001:db8::1' },
        },
        201,
      )
    ).body.email_capture;
    const bareCapture = (await c.call('POST', '/v2/email_captures', { ...v2(), body: { widget_id: noReward.id, email_address: 'cap2@example.com' } }, 201)).body
      .email_capture;
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
    await c.call(
      'POST',
      '/v2/purchases',
      { ...v2(), body: { order_id: 'ORD-COUPON', coupon_code: 'SOLO-1', new_customer: 'no', email_address: 'kim@example.com' } },
      201,
    );
    await c.call(
      'POST',
      '/v2/purchases',
      { ...v2(), body: { order_id: 'ORD-SAME', referral_code: emailPurl.code, email_address: 'eve@example.com', payment_amount: 5 } },
      201,
    );
    await c.call(
      'POST',
      '/v2/purchases',
      { ...v2(), body: { order_id: 'ORD-SHARE', referral_code: shareCode, email_address: 'fred@example.com', payment_amount: 20 } },
      201,
    );
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
          body: {
            order_id: 'V1-RICH',
            campaign_id: widget.id,
            referral_code: customerCode.referral_code,
            customer_id: buyer.id,
            payment_amount: 10,
            products: [{ sku: 'A', quantity: 2, price: 5 }],
          },
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
    const job = (await c.call('POST', '/v2/email_opt_out_jobs', { ...v2(), body: { email_addresses: ['out1@example.com', 'OUT2@example.com'] } }, 202)).body
      .email_opt_out_job;
    const v1Job = (await c.call('POST', '/v1/email_opt_out_jobs', { ...v1(), body: { email_addresses: ['out3@example.com'] } }, 202)).body;
    await eventually(
      async () => expect((await c.call('GET', `/v2/email_opt_out_jobs/${job.id}`, v2(), 200)).body.email_opt_out_job.status).toBe('completed'),
      WAIT_MS,
    );
    await eventually(async () => expect((await c.call('GET', `/v1/email_opt_out_jobs/${v1Job.id}`, v1(), 200)).body.status).toBe('completed'), WAIT_MS);
    await c.call('GET', '/v2/email_opt_outs', v2(), 200);
    await c.call('GET', '/v1/email_opt_outs', v1(), 200);
    await c.call('DELETE', '/v2/email_opt_outs/out1%40example.com', v2(), 200);
    await c.call('DELETE', '/v1/email_opt_outs/out3%40example.com', v1(), 200);

    // Personal-data erasure: a job on v2 and on v1 (of addresses nothing else here uses), read back; a bad request.
    const erasure = (await c.call('POST', '/v2/user_data/delete', { ...v2(), body: { email_addresses: ['gone@example.com'] } }, 202)).body.user_data_deletion;
    const v1Erasure = (await c.call('POST', '/v1/user_data/delete', { ...v1(), body: { email_addresses: ['gone-too@example.com'] } }, 202)).body;
    await eventually(
      async () => expect((await c.call('GET', `/v2/user_data/delete/${erasure.id}`, v2(), 200)).body.user_data_deletion.status).toBe('completed'),
      WAIT_MS,
    );
    await eventually(async () => expect((await c.call('GET', `/v1/user_data/delete/${v1Erasure.id}`, v1(), 200)).body.status).toBe('completed'), WAIT_MS);
    await c.call('POST', '/v2/user_data/delete', { ...v2(), body: { email_addresses: ['not an address'] } }, 400);
    await c.call('POST', '/v1/user_data/delete', { ...v1(), body: { email_addresses: [] } }, 400);

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
    await c.call(
      'POST',
      '/v2/shares',
      { ...asCustomer, body: { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['jo@example.com'] } },
      201,
    );

    Object.assign(fixture, {
      '/v1/customers/{id}': String(full.id),
      '/v1/shares/{id}': String(v1Share.id),
      '/v1/reminder_emails/{id}': String(reminder.id),
      '/v1/purchases/{id}': String(v1Rich.id),
      '/v1/conversions/{id}': String(converted.id),
      '/v1/rewards/{id}': String(rewards[0].id),
      '/v1/email_opt_out_jobs/{id}': String(v1Job.id),
      '/v1/email_opt_outs/{email_address}': 'out2@example.com',
      '/v1/user_data/delete/{id}': String(v1Erasure.id),
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
      '/v2/user_data/delete/{id}': String(erasure.id),
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
    await c.call(
      'POST',
      '/v2/shares',
      { ...v2(), body: { widget_id: widget.id, reward_email_address: 'not-an-address', email_recipients: 'x', bogus: 1 } },
      400,
    );
    await c.call('GET', '/v2/purchases?limit=0', v2(), 400);
    await c.call('GET', '/v1/purchases?offset=-1', v1(), 400);
  }, 60_000);

  it('answers the documented error body on the statuses each v1 and v2 operation documents: 400, 401, 403 and 404', async () => {
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

  it('answers every admin, probe, metrics and trackable-link operation as documented', async () => {
    const c = check;
    const admin = service.admin;
    const mine = (path: string) => `/admin/merchants/${m.id}${path}`;
    const customerId = Number(fixture['/v2/customers/{id}']);

    // Merchants: the secret key at registration and rotation only (a merchant of its own: rotation ends m's tokens).
    const other = (await c.call('POST', '/admin/merchants', { ...admin, body: { name: 'Admin shop' } }, 201)).body.merchant;
    expect(other.secret_key).toEqual(expect.any(String));
    expect((await c.call('GET', `/admin/merchants/${other.id}`, admin, 200)).body.merchant).not.toHaveProperty('secret_key');
    await c.call('PATCH', `/admin/merchants/${other.id}`, { ...admin, body: { name: 'Admin shop, renamed', can_see_recipients: true } }, 200);
    expect((await c.call('POST', `/admin/merchants/${other.id}/secret_key`, admin, 200)).body.merchant.secret_key).not.toBe(other.secret_key);
    expect((await c.call('POST', `/admin/merchants/${other.id}/publishable_key`, admin, 200)).body.merchant.publishable_key).not.toBe(other.publishable_key);

    // The browser routes, with every status they document: a page on an allowed origin with m's publishable key.
    const origin = 'https://shop.example';
    const pk = (await c.call('PATCH', mine(''), { ...admin, body: { allowed_origins: [origin] } }, 200)).body.merchant.publishable_key as string;
    const browser = (more: RequestOptions = {}): RequestOptions => ({ ...more, headers: { 'x-publishable-key': pk, origin, ...more.headers } });
    const offered = (await c.call('GET', '/browser/v1/widgets', browser(), 200)).body.widgets as { id: number }[];
    const captureWidget = (await c.call('POST', mine('/widgets'), { ...admin, body: { name: 'Newsletter', objective: 'email_capture', published: true } }, 201))
      .body.widget;
    await c.call('GET', `/browser/v1/widgets/${offered[0].id}/variant?visitor=v-1`, browser(), 200);
    await c.call(
      'POST',
      '/browser/v1/email_captures',
      browser({ body: { widget_id: captureWidget.id, email_address: 'page@example.com', newsletter_opt_in: true } }),
      201,
    );
    for (const [method, path, body] of [
      ['GET', '/browser/v1/widgets', undefined],
      ['GET', `/browser/v1/widgets/${offered[0].id}/variant?visitor=v-1`, undefined],
      ['POST', '/browser/v1/email_captures', { widget_id: captureWidget.id, email_address: 'page@example.com' }],
    ] as const) {
      await c.call(method, `${path}${path.includes('?') ? '&' : '?'}bogus=1`, browser({ body }), 400);
      await c.call(method, path, { headers: { origin }, body }, 401);
      await c.call(method, path, browser({ body, headers: { origin: 'https://evil.example' } }), 403);
    }
    // The routes that act: a customer's link and shares, a code's lookup, a signed purchase.
    const customerToken = (await service.post('/v2/tokens/customer', { customer_id: customerId }, { auth: m.bearer })).body.token as string;
    const asCustomer = (more: RequestOptions = {}) => browser({ ...more, headers: { 'x-customer-token': customerToken, ...more.headers } });
    const pageLink = (await c.call('POST', '/browser/v1/referral_links', asCustomer({ body: { widget_id: offered[0].id } }), 201)).body.referral_link;
    await c.call('POST', '/browser/v1/shares', asCustomer({ body: { widget_id: offered[0].id, channel: 'facebook' } }), 201);
    await c.call(
      'POST',
      '/browser/v1/shares',
      asCustomer({ body: { widget_id: offered[0].id, channel: 'email', email_recipients: ['page.friend@example.com'] } }),
      201,
    );
    await c.call('GET', `/browser/v1/referral_codes/${pageLink.code}`, browser(), 200);
    const signed = async (claims: Record<string, unknown>, key = m.secretKey) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(key));
    const orderToken = await signed({ order_id: 'PAGE-1', payment_amount: 12 });
    await c.call('POST', '/browser/v1/purchases', browser({ body: { purchase_token: orderToken, referral_code: pageLink.code } }), 201);
    await c.call('POST', '/browser/v1/purchases', browser({ body: { purchase_token: await signed({ order_id: 'PAGE-2' }) } }), 201);
    await c.call('POST', '/browser/v1/purchases', browser({ body: { purchase_token: orderToken } }), 409);
    await c.call('POST', '/browser/v1/purchases', browser({ body: { purchase_token: await signed({ order_id: 'PAGE-3' }, 'sk_someone_else') } }), 401);
    await c.call('POST', '/browser/v1/purchases', browser({ body: { purchase_token: await signed({ order_id: 'PAGE-4', widget_id: 999_999_999_999 }) } }), 404);
    await c.call('POST', '/browser/v1/purchases', browser({ body: { purchase_token: 'not-a-jwt' } }), 400);
    await c.call('POST', '/browser/v1/referral_links', browser({ body: { widget_id: offered[0].id } }), 401);
    await c.call('POST', '/browser/v1/referral_links', asCustomer({ body: { widget_id: 999_999_999_999 } }), 404);
    await c.call('POST', '/browser/v1/shares', asCustomer({ body: { widget_id: offered[0].id, channel: 'email' } }), 400);
    await c.call('POST', '/browser/v1/shares', asCustomer({ body: { widget_id: 999_999_999_999, channel: 'twitter' } }), 404);
    await c.call('GET', '/browser/v1/referral_codes/no-such-code', browser(), 404);
    await c.call('GET', '/browser/v1/referral_codes/bad%20code', browser(), 400);
    await c.call('GET', '/browser/v1/widgets/999999999999/variant?visitor=v-1', browser(), 404);
    await c.call('POST', '/browser/v1/email_captures', browser({ body: { widget_id: 999_999_999_999, email_address: 'page@example.com' } }), 404);
    await c.call('POST', '/browser/v1/email_captures', browser({ body: { widget_id: captureWidget.id, email_address: 'again@example.com' } }), 429);
    let throttled: Reply | undefined;
    while (!throttled) {
      const reply = await service.get('/browser/v1/widgets', browser());
      if (reply.status === 429) throttled = reply;
      else expect(reply.status).toBe(200);
    }
    await c.call('GET', '/browser/v1/widgets', browser(), 429);
    await c.call('GET', `/browser/v1/widgets/${offered[0].id}/variant?visitor=v-1`, browser(), 429);
    await c.call('GET', `/browser/v1/referral_codes/${pageLink.code}`, browser(), 429);
    await c.call('POST', '/browser/v1/referral_links', asCustomer({ body: { widget_id: offered[0].id } }), 429);
    await c.call('POST', '/browser/v1/shares', asCustomer({ body: { widget_id: offered[0].id, channel: 'facebook' } }), 429);
    await c.call('POST', '/browser/v1/purchases', browser({ body: { purchase_token: await signed({ order_id: 'PAGE-5' }) } }), 429);

    // Widgets: every setting and rule set, and the fewest (null reward, destination and rules).
    const widget = (
      await c.call(
        'POST',
        mine('/widgets'),
        {
          ...admin,
          body: {
            name: 'Every rule',
            reward_type: 'percent_discount',
            reward_amount: 15,
            destination_url: 'https://shop.example/rules',
            reward_criteria: {
              new_customers_only: true,
              minimum_purchase_amount: 20,
              max_rewards_per_advocate: 3,
              max_reward_amount_per_advocate: 45,
              cap_window_days: 30,
            },
            fraud_checks: { same_ip: true, similar_email: true },
            reward_validation_url: failingUrl,
          },
        },
        201,
      )
    ).body.widget;
    const bareWidget = (await c.call('POST', mine('/widgets'), { ...admin, body: { name: 'Fewest' } }, 201)).body.widget;
    expect(bareWidget).toMatchObject({ reward_type: null, destination_url: null, reward_validation_url: null });
    await c.call('PATCH', mine(`/widgets/${widget.id}`), { ...admin, body: { is_champion: true, archived: true, distribution: 40 } }, 200);
    await c.call('GET', mine(`/widgets/${widget.id}`), admin, 200);
    await c.call('GET', mine('/widgets'), admin, 200);

    // Coupon banks: made, listed, topped up; a code of another bank, or one differing in case alone, is 409.
    const bank = (await c.call('POST', mine('/coupon_banks'), { ...admin, body: { name: 'Admin bank', codes: ['ADM-1', 'ADM-2'] } }, 201)).body.coupon_bank;
    await c.call('GET', mine('/coupon_banks'), admin, 200);
    await c.call('GET', mine(`/coupon_banks/${bank.id}`), admin, 200);
    await c.call('POST', mine(`/coupon_banks/${bank.id}/codes`), { ...admin, body: { codes: ['ADM-3'] } }, 200);
    await c.call('POST', mine(`/coupon_banks/${bank.id}/codes`), { ...admin, body: { codes: ['FRIEND-1'] } }, 409);
    await c.call('POST', mine('/coupon_banks'), { ...admin, body: { name: 'Clash', codes: ['adm-1'] } }, 409);

    // Vanity links of a customer (with parameters) and of an address; the blacklist on and off.
    const vanity = (
      await c.call(
        'POST',
        mine('/vanity_links'),
        { ...admin, body: { widget_id: widget.id, code: 'vanity-admin', customer_id: customerId, link_parameters: { utm_campaign: 'vip' } } },
        201,
      )
    ).body.referral_link;
    await c.call('POST', mine('/vanity_links'), { ...admin, body: { widget_id: bareWidget.id, code: 'VANITY-ADMIN', email_address: 'v@example.com' } }, 409);
    expect((await c.call('PUT', mine('/referral_links/vanity-admin/blacklist'), admin, 200)).body.referral_link.blacklisted).toBe(true);
    expect((await c.call('DELETE', mine('/referral_links/VANITY-ADMIN/blacklist'), admin, 200)).body.referral_link.blacklisted).toBe(false);

    // The outbox: share emails and reminders, a page with next_page and the page it names.
    const outbox = (await c.call('GET', mine('/outbox?limit=100'), admin, 200)).body;
    expect(new Set(outbox.results.map((x: { kind: string }) => x.kind))).toEqual(new Set(['share', 'reminder_email']));
    const firstEmails = (await c.call('GET', mine('/outbox?limit=1'), admin, 200)).body;
    await c.call('GET', (firstEmails.next_page as string).slice(service.url.length), admin, 200);
    await c.call('GET', mine('/outbox?status=delivered&recipient=FRED@example.com'), admin, 200);

    // Client API and custom headers: unset (nulls, {}), then set.
    await c.call('GET', mine('/client_api'), admin, 200);
    await c.call('PUT', mine('/client_api'), { ...admin, body: { share_instructions_url: null, reward_validation_url: failingUrl } }, 200);
    await c.call('GET', mine('/client_api'), admin, 200);
    await c.call('PUT', mine('/client_api'), { ...admin, body: { share_instructions_url: null, reward_validation_url: null } }, 200);
    await c.call('GET', mine('/custom_headers'), admin, 200);
    await c.call('PUT', mine('/custom_headers'), { ...admin, body: { headers: { 'X-Vendor': 'referral-tests' } } }, 200);
    await c.call('GET', mine('/custom_headers'), admin, 200);

    // Webhook endpoints: one that takes every kind and answers 200, one that answers 500 (attempts, then abandoned).
    const taker = (await c.call('POST', mine('/webhook_endpoints'), { ...admin, body: { url: receiverUrl } }, 201)).body.webhook_endpoint;
    expect(taker.all_events).toBe(true);
    const refuser = (await c.call('POST', mine('/webhook_endpoints'), { ...admin, body: { url: failingUrl, events: ['reward.approved'] } }, 201)).body
      .webhook_endpoint;
    await c.call('PATCH', mine(`/webhook_endpoints/${refuser.id}`), { ...admin, body: { events: ['reward.approved', 'reward.rejected'] } }, 200);
    await c.call('GET', mine(`/webhook_endpoints/${taker.id}`), admin, 200);
    await c.call('GET', mine('/webhook_endpoints'), admin, 200);

    // Rewards: the one awaiting its failing callback (attempts, next_validation_at), decided by hand both ways;
    // an approved one cannot be rejected. The decisions are webhooks to both endpoints.
    const rewards = (await service.get('/v2/rewards?limit=100', { auth: m.bearer })).body.results as { id: number; status: string }[];
    const pending = rewards.find((r) => r.status === 'pending')!;
    const waiting = (await c.call('GET', mine(`/rewards/${pending.id}`), admin, 200)).body.reward;
    expect(waiting.validation_attempts.length).toBeGreaterThan(0);
    for (const r of rewards.filter((x) => x.status !== 'pending').slice(0, 4)) await c.call('GET', mine(`/rewards/${r.id}`), admin, 200);
    await c.call('POST', mine(`/rewards/${pending.id}/reject`), { ...admin, body: { by: 'ops@shop.example', reason: 'order refunded' } }, 200);
    await c.call('POST', mine(`/rewards/${pending.id}/approve`), { ...admin, body: { by: 'ops@shop.example' } }, 200);
    await c.call('POST', mine(`/rewards/${pending.id}/reject`), { ...admin, body: { by: 'ops@shop.example' } }, 409);
    await c.call('GET', mine(`/rewards/${pending.id}`), admin, 200);

    // Deliveries: delivered (to the taker), attempted and pending (to the refuser), then abandoned when it is deleted.
    const deliveries = await eventually(async () => {
      const list = (await c.call('GET', mine('/webhook_deliveries?limit=100'), admin, 200)).body.results as {
        id: number;
        endpoint_id: number;
        status: string;
        attempts: unknown[];
      }[];
      expect(list.some((d) => d.endpoint_id === taker.id && d.status === 'delivered')).toBe(true);
      expect(list.some((d) => d.endpoint_id === refuser.id && d.attempts.length > 0)).toBe(true);
      return list;
    }, WAIT_MS);
    const delivered = deliveries.find((d) => d.status === 'delivered')!;
    const refused = deliveries.find((d) => d.endpoint_id === refuser.id)!;
    await c.call('GET', mine(`/webhook_deliveries/${refused.id}`), admin, 200);
    const firstDeliveries = (await c.call('GET', mine(`/webhook_deliveries?limit=1&status=delivered&kind=reward.approved&endpoint_id=${taker.id}`), admin, 200))
      .body;
    if (firstDeliveries.next_page) await c.call('GET', (firstDeliveries.next_page as string).slice(service.url.length), admin, 200);
    expect((await c.call('POST', mine(`/webhook_deliveries/${delivered.id}/redeliver`), admin, 202)).body.webhook_delivery.status).toBe('pending');
    await c.call('DELETE', mine(`/webhook_endpoints/${refuser.id}`), admin, 204);
    await eventually(
      async () =>
        expect((await c.call('GET', mine(`/webhook_deliveries/${refused.id}`), admin, 200)).body.webhook_delivery.abandon_reason).toBe('endpoint_deleted'),
      WAIT_MS,
    );
    await c.call('POST', mine(`/webhook_deliveries/${refused.id}/redeliver`), admin, 409);

    // Point-in-time reads: by time (a page whose next_page leads to the same point), by position (an inner 404),
    // and before the merchant existed.
    const asOf = (query: string) => mine(`/as_of?${query}`);
    const now = (
      await c.call('GET', asOf(`at=${encodeURIComponent(new Date().toISOString())}&path=${encodeURIComponent('/v2/purchases?limit=1')}`), admin, 200)
    ).body;
    expect(now.body.next_page).toContain('/as_of?');
    await c.call('GET', asOf(`position=${now.as_of.position}&path=${encodeURIComponent('/v1/customers/999999999')}`), admin, 200);
    await c.call('GET', asOf(`position=0&path=${encodeURIComponent('/v2/widgets')}`), admin, 404);

    // The sandbox's sample merchant, and a reset.
    await c.call('GET', '/admin/sandbox', admin, 200);
    await c.call('POST', '/admin/sandbox/reset', admin, 200);

    // Probes, metrics (text, behind METRICS_TOKEN) and the trackable link (a redirect without a body).
    await c.call('GET', '/health', {}, 200);
    await c.call('GET', '/ready', {}, 200);
    await c.call('GET', '/health', { host: 'not a host' }, 400);
    await c.call('GET', '/ready', { host: 'not a host' }, 400);
    await c.call('GET', '/metrics', { auth: `Bearer ${METRICS_TOKEN}` }, 200);
    await c.call('GET', '/metrics', {}, 401);
    const visit = await c.call('GET', `/l/${vanity.code}?utm_source=news`, {}, 302);
    expect(visit.headers.get('location')).toMatch(/^https:\/\/shop\.example\/rules\?/);
    await c.call('GET', '/l/nosuchcode', {}, 404);
  }, 60_000);

  it('answers the documented error body on every admin operation: 400, 401 and 404', async () => {
    const c = check;
    const admin = service.admin;
    const admins = c.operations.filter((o) => isAdmin(o.path));
    expect(admins.filter((o) => !c.samples.has(o.key)).map((o) => o.key)).toEqual([]);
    for (const { key, method } of admins) {
      const { url, body } = c.samples.get(key)!;
      // 401: no admin token.
      await c.call(method, url, { body }, 401);
      // 400: a query parameter the route does not take (before anything is read or written).
      await c.call(method, `${url}${url.includes('?') ? '&' : '?'}bogus=1`, { ...admin, body }, 400);
      // 404: a merchant that is not there, whatever else the request holds.
      if (/^\/admin\/merchants\/\d+/.test(url))
        await c.call(method, url.replace(/^\/admin\/merchants\/\d+/, '/admin/merchants/999999999999'), { ...admin, body }, 404);
    }
  }, 60_000);

  it('revokes the merchant tokens (DELETE /v2/tokens/merchant)', async () => {
    await check.call('DELETE', '/v2/tokens/merchant', { auth: plain.bearer, body: { access_key: plain.accessKey, secret_key: plain.secretKey } }, 200);
    expect((await service.get('/v2/widgets', { auth: plain.bearer })).status).toBe(401);
  });

  it('has called every documented success status of every operation, and an error of each that documents one', () => {
    const missing: string[] = [];
    for (const { key, op } of check.operations) {
      const answered = check.answered.get(key) ?? new Set<string>();
      for (const status of Object.keys(op.responses).filter(isSuccess)) if (!answered.has(status)) missing.push(`${key} ${status}`);
      const documentsError = Object.keys(op.responses).some((status) => /^4/.test(status));
      if (documentsError && ![...answered].some((status) => /^4/.test(status))) missing.push(`${key} (no error)`);
    }
    expect(missing).toEqual([]);
    expect(check.apiOperations.length).toBeGreaterThanOrEqual(58);
    expect(check.operations.length - check.apiOperations.length).toBeGreaterThanOrEqual(38);
  });
});
