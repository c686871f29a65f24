/** Small HTTP helpers for seeding and setup (fetch), and a bounded-concurrency pool. */

export async function call(base, method, path, { body, auth, expect } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (auth) headers.authorization = auth;
  const response = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (expect !== undefined && !(Array.isArray(expect) ? expect : [expect]).includes(response.status)) {
    throw new Error(`${method} ${path} answered ${response.status} (expected ${expect}): ${text.slice(0, 500)}`);
  }
  return { status: response.status, body: json, text };
}

/**
 * Advocates for the experiments: for each account id (`adv-N`), a customer with an address of its own
 * and a customer PURL on `widgetId`, 8 at a time. Returns each one's customer id and code, in order.
 */
export async function seedAdvocates(base, auth, widgetId, accountIds) {
  return pool(accountIds, 8, async (account_id) => {
    const customer = (await call(base, 'POST', '/v2/customers', { body: { account_id, email_address: `${account_id}@example.com` }, auth, expect: 201 })).body
      .customer;
    const link = (await call(base, 'POST', '/v2/personal_referral_links', { body: { widget_id: widgetId, customer_id: customer.id }, auth, expect: 201 })).body
      .referral_link;
    return { customerId: customer.id, code: link.code };
  });
}

/**
 * The body of the bench's write request (its scenario and the experiments that compare with it): a
 * purchase with order id `orderId` on a random code of `codes`, which records, attributes and rewards.
 */
export function benchPurchase(orderId, codes) {
  return {
    order_id: orderId,
    referral_code: codes[Math.floor(Math.random() * codes.length)],
    payment_amount: 49.5,
    new_customer: 'yes',
    email_address: `friend-${orderId}@example.net`,
    ip_address: '198.51.100.7',
  };
}

/** The bench's lookup request for autocannon: GET /v2/customers?account_id= with a random one of `accountIds` each time. */
export function lookupRequest(authorization, accountIds) {
  return {
    method: 'GET',
    path: `/v2/customers?account_id=${accountIds[0]}`,
    headers: { authorization },
    setupRequest(req) {
      req.path = `/v2/customers?account_id=${accountIds[Math.floor(Math.random() * accountIds.length)]}`;
      return req;
    },
  };
}

/** Runs `fn` over `items` with at most `concurrency` at a time; results in input order. */
export async function pool(items, concurrency, fn) {
  const results = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** Value of one Prometheus sample (no labels) from /metrics text, or undefined. */
export function metricValue(text, name) {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)`, 'm').exec(text ?? '');
  return m ? Number(m[1]) : undefined;
}

/** Each V8 heap space's committed (`total`) and used bytes, from prom-client's metrics text. */
export function heapSpacesOf(text) {
  const spaces = {};
  for (const m of (text ?? '').matchAll(/^nodejs_heap_space_size_(total|used)_bytes\{space="(\w+)"\} ([0-9.eE+-]+)/gm)) {
    spaces[m[2]] ??= {};
    spaces[m[2]][m[1]] = Number(m[3]);
  }
  return spaces;
}

/**
 * A merchant with a rewarded widget (fixed_cash 10) created through the admin API, and a v2
 * merchant token for it: what every bench scenario and experiment starts from.
 */
export async function seedMerchant(base, adminAuth, { name = 'Bench shop', widgetName = 'Give $10, get $10' } = {}) {
  const merchant = (await call(base, 'POST', '/admin/merchants', { body: { name }, auth: adminAuth, expect: 201 })).body.merchant;
  const widget = (
    await call(base, 'POST', `/admin/merchants/${merchant.id}/widgets`, {
      body: { name: widgetName, reward_type: 'fixed_cash', reward_amount: 10, destination_url: 'https://shop.example/' },
      auth: adminAuth,
      expect: 201,
    })
  ).body.widget;
  const token = (await call(base, 'POST', '/v2/tokens/merchant', { body: { access_key: merchant.access_key, secret_key: merchant.secret_key }, expect: 200 }))
    .body.token;
  return { merchant, widget, auth: `Bearer ${token}` };
}
