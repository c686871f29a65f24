/**
 * The bare baseline: plain Fastify (the same Fastify and Node as the service), no Nest, no
 * validation library, no event store, no durability. It answers the same requests the bench
 * sends to the service:
 *
 *   POST /v2/purchases          body checked by hand, stored in a Map (409 on a repeated order_id), 201 + small JSON
 *   GET  /v2/purchases?limit=   a page over the Map's values in insertion order, cursor paging, absolute next_page
 *   POST /v2/customers          (seeding) stored in a Map keyed by account_id
 *   GET  /v2/customers?account_id=  lookup by account id, answered as a page of 0 or 1
 *   GET  /health
 *
 * Authorization is one string comparison against `Bearer <BASELINE_TOKEN>`.
 * Env: PORT, HOST (127.0.0.1), BASELINE_TOKEN.
 */
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';
const expectedAuth = `Bearer ${process.env.BASELINE_TOKEN ?? 'baseline-token'}`;

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });

/** order_id → purchase, and the same values in insertion order for paging. */
const purchases = new Map();
const purchaseList = [];
/** account_id → customer */
const customers = new Map();
let nextId = 1;

const isString = (v, max) => typeof v === 'string' && v.length >= 1 && v.length <= max;
const isOptionalString = (v, max) => v === undefined || isString(v, max);
const isMoney = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const NEW_CUSTOMER = new Set(['yes', 'no', 'unknown']);
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const PURCHASE_FIELDS = new Set([
  'order_id',
  'referral_code',
  'coupon_code',
  'payment_amount',
  'new_customer',
  'email_address',
  'ip_address',
  'referrer',
  'customer_id',
  'widget_id',
  'products',
]);

function unauthorized(request, reply) {
  if (request.headers.authorization === expectedAuth) return false;
  reply.code(401).send({ errors: ['unauthorized'] });
  return true;
}

function purchaseErrors(body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['the body must be a JSON object'];
  const errors = [];
  for (const key of Object.keys(body)) if (!PURCHASE_FIELDS.has(key)) errors.push({ property: key, code: 'unrecognized_property' });
  if (!isString(body.order_id, 255)) errors.push({ property: 'order_id', code: body.order_id === undefined ? 'missing' : 'invalid' });
  if (!isOptionalString(body.referral_code, 64)) errors.push({ property: 'referral_code', code: 'invalid' });
  if (!isOptionalString(body.coupon_code, 100)) errors.push({ property: 'coupon_code', code: 'invalid' });
  if (body.payment_amount !== undefined && !isMoney(body.payment_amount)) errors.push({ property: 'payment_amount', code: 'invalid' });
  if (body.new_customer !== undefined && !NEW_CUSTOMER.has(body.new_customer)) errors.push({ property: 'new_customer', code: 'invalid' });
  if (body.email_address !== undefined && !(isString(body.email_address, 320) && EMAIL.test(body.email_address)))
    errors.push({ property: 'email_address', code: 'invalid' });
  if (body.ip_address !== undefined && !(typeof body.ip_address === 'string' && IPV4.test(body.ip_address)))
    errors.push({ property: 'ip_address', code: 'invalid' });
  if (!isOptionalString(body.referrer, 2000)) errors.push({ property: 'referrer', code: 'invalid' });
  if (body.products !== undefined && !Array.isArray(body.products)) errors.push({ property: 'products', code: 'wrong_type' });
  return errors;
}

app.post('/v2/purchases', (request, reply) => {
  if (unauthorized(request, reply)) return;
  const body = request.body;
  const errors = purchaseErrors(body);
  if (errors.length > 0) return reply.code(400).send({ errors });
  if (purchases.has(body.order_id)) return reply.code(409).send({ errors: [`order_id ${body.order_id} is already used`] });
  const purchase = {
    id: nextId++,
    order_id: body.order_id,
    payment_amount: body.payment_amount ?? null,
    new_customer: body.new_customer === undefined ? 'unknown' : body.new_customer === 'yes' ? true : body.new_customer === 'no' ? false : 'unknown',
    ip_address: body.ip_address ?? null,
    referrer: body.referrer ?? null,
    referral_code: body.referral_code ?? null,
    email_address: body.email_address ?? null,
    created_at: new Date().toISOString(),
  };
  purchases.set(purchase.order_id, purchase);
  purchaseList.push(purchase);
  return reply.code(201).send({ purchase });
});

function parseLimit(raw) {
  if (raw === undefined) return 20;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : undefined;
}

app.get('/v2/purchases', (request, reply) => {
  if (unauthorized(request, reply)) return;
  const limit = parseLimit(request.query.limit);
  if (limit === undefined) return reply.code(400).send({ errors: ['limit must be a positive integer'] });
  let start = 0;
  if (request.query.cursor !== undefined) {
    start = Number(Buffer.from(String(request.query.cursor), 'base64url').toString('utf8'));
    if (!Number.isInteger(start) || start < 0) return reply.code(400).send({ errors: ['invalid cursor'] });
  }
  const results = purchaseList.slice(start, start + limit);
  const end = start + results.length;
  const next_page =
    end < purchaseList.length ? `http://${request.headers.host}/v2/purchases?limit=${limit}&cursor=${Buffer.from(String(end)).toString('base64url')}` : null;
  return { next_page, results_count: results.length, results };
});

app.post('/v2/customers', (request, reply) => {
  if (unauthorized(request, reply)) return;
  const body = request.body;
  if (body === null || typeof body !== 'object' || !isString(body.account_id, 255))
    return reply.code(400).send({ errors: [{ property: 'account_id', code: 'invalid' }] });
  const existing = customers.get(body.account_id);
  const customer = {
    id: existing?.id ?? nextId++,
    account_id: body.account_id,
    email_address: body.email_address ?? null,
    created_at: existing?.created_at ?? new Date().toISOString(),
  };
  customers.set(customer.account_id, customer);
  return reply.code(existing ? 200 : 201).send({ customer });
});

app.get('/v2/customers', (request, reply) => {
  if (unauthorized(request, reply)) return;
  const accountId = request.query.account_id;
  if (typeof accountId !== 'string') return reply.code(400).send({ errors: ['account_id is required here'] });
  const found = customers.get(accountId);
  const results = found ? [found] : [];
  return { next_page: null, results_count: results.length, results };
});

app.get('/health', () => ({ status: 'ok' }));

await app.listen({ port, host });
process.stdout.write(`baseline listening on http://${host}:${app.server.address().port}\n`);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => app.close().then(() => process.exit(0)));
