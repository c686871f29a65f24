/**
 * No client input may produce a 5xx, every refusal is a 4xx with {"errors": [...]}, and a
 * refused request changes nothing. Driven by the OpenAPI document: every route it lists is
 * hit with fast-check-generated bad bodies and query values (fixed seed, bounded runs), plus
 * a fixed corpus of malformed requests that always runs.
 */
import fc from 'fast-check';
import net from 'node:net';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { Service, TestMerchant, createMerchant, createWidget } from '../support/service.js';

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string }[];
  body?: { properties?: Record<string, unknown>; required?: string[] };
}

const RUNS_PER_ROUTE = 12;

describe('bad input never produces a 5xx and changes nothing', () => {
  let service: Service;
  let m: TestMerchant;
  let store: EventStore;
  let operations: Operation[];
  const ids: Record<string, string> = {};
  /** The browser routes are called as a page on an allowed origin would (docs/embedding.md). */
  const PAGE_ORIGIN = 'https://shop.example';
  let publishableKey: string;
  /** For the browser routes that act for a customer (X-Customer-Token). */
  let customerToken: string;

  beforeAll(async () => {
    // The browser routes' throttle out of the way: every request here is from 127.0.0.1.
    service = await Service.start({
      env: {
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS: '1000000',
        BROWSER_CAPTURES_PER_MINUTE_PER_ADDRESS: '1000000',
        BROWSER_SHARES_PER_MINUTE_PER_ADDRESS: '1000000',
        BROWSER_PURCHASES_PER_MINUTE_PER_ADDRESS: '1000000',
      },
    });
    m = await createMerchant(service);
    publishableKey = (await service.patch(`/admin/merchants/${m.id}`, { allowed_origins: [PAGE_ORIGIN] }, service.admin)).body.merchant.publishable_key;
    store = service.app.get<EventStore>(EVENT_STORE);
    const widget = await createWidget(service, m);
    const customer = (await service.post('/v2/customers', { account_id: 'fixture', email_address: 'fx@example.com' }, { auth: m.bearer })).body.customer;
    const link = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, { auth: m.bearer })).body.referral_link;
    const purchase = (await service.post('/v2/purchases', { order_id: 'fixture-1', referral_code: link.code }, { auth: m.bearer })).body.purchase;
    customerToken = (await service.post('/v2/tokens/customer', { customer_id: customer.id }, { auth: m.bearer })).body.token;
    Object.assign(ids, { merchant_id: String(m.id), widget_id: String(widget.id), id: String(customer.id), code: link.code, purchase_id: String(purchase.id) });
    const doc = (await service.get('/docs-json')).body as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: { 'application/json': { schema: { $ref?: string } } } } }>
      >;
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    operations = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
        operations.push({
          method: method.toUpperCase(),
          path,
          params: op.parameters ?? [],
          body: ref ? doc.components.schemas[ref.split('/').pop()!] : undefined,
        });
      }
    }
  });
  afterAll(async () => {
    await service.stop();
  });

  function auth(path: string): string | undefined {
    if (path.startsWith('/admin')) return service.admin.auth;
    if (path.startsWith('/v1')) return m.basic;
    if (path.startsWith('/v2')) return m.bearer;
    return undefined;
  }

  /** The route's credentials as request options, with `headers` of the request's own. */
  function credentials(path: string, headers: Record<string, string> = {}): { auth?: string; headers: Record<string, string> } {
    if (path.startsWith('/browser/'))
      return { headers: { ...headers, 'x-publishable-key': publishableKey, 'x-customer-token': customerToken, origin: PAGE_ORIGIN } };
    return { auth: auth(path), headers };
  }

  function url(op: Operation, pathValues: Record<string, string>, query: Record<string, string>): string {
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name] ?? ids[name] ?? ids.id));
    const qs = new URLSearchParams(query).toString();
    return qs ? `${path}?${qs}` : path;
  }

  async function expectRefusedOrFine(op: Operation, reply: { status: number; body: unknown; text: string }, before: bigint, label: string) {
    if (reply.status >= 500) throw new Error(`${op.method} ${op.path} answered ${reply.status} to ${label}: ${reply.text.slice(0, 300)}`);
    if (reply.status >= 400) {
      const errors = (reply.body as { errors?: unknown[] })?.errors;
      if (!Array.isArray(errors) || errors.length === 0)
        throw new Error(`${op.method} ${op.path} ${reply.status} without an errors array for ${label}: ${reply.text.slice(0, 200)}`);
      // The webhook reactor checkpoints its own position in the background; nothing else may appear.
      const written = (await store.readAll({ after: before })).filter((e) => !e.streamName.startsWith('webhook-reactor'));
      if (written.length > 0)
        throw new Error(
          `${op.method} ${op.path} refused ${label} with ${reply.status} but wrote events: ${written.map((e) => `${e.type}@${e.streamName}`).join(', ')}`,
        );
    }
  }

  const nasty = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constant(''),
    fc.constant('lone \ud800 surrogate'),
    fc.string({ maxLength: 20 }),
    fc.constant('x'.repeat(100_000)),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
    fc.constant({ __proto__: { polluted: true } }),
    fc.constant(JSON.parse('{"constructor":{"prototype":{"polluted":true}}}')),
    fc.letrec((tie) => ({ deep: fc.oneof({ depthSize: 'small' }, fc.constant(1), fc.array(tie('deep'), { maxLength: 2 })) })).deep,
  );

  it('bodies: wrong types, missing and unknown properties, nesting, huge strings', async () => {
    for (const op of operations.filter((o) => o.body)) {
      const properties = Object.keys(op.body!.properties ?? {});
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom(...properties, 'unknown_property', '__proto__'), nasty, { maxKeys: Math.max(1, properties.length) }),
          async (body) => {
            const before = await store.headPosition();
            const reply = await service.request(op.method, url(op, {}, {}), { body, ...credentials(op.path) });
            await expectRefusedOrFine(op, reply, before, JSON.stringify(body).slice(0, 200));
          },
        ),
        { numRuns: RUNS_PER_ROUTE, seed: 20261122, endOnFailure: true },
      );
    }
  });

  it('query values and path ids: junk, huge numbers, bad cursors and dates', async () => {
    const junk = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('-1', '0', '1e999', '99999999999999999999', '%00', '../..', 'null', '2026-02-30', 'bm90IGEgY3Vyc29y', 'x'.repeat(5000)),
    );
    for (const op of operations.filter((o) => o.method === 'GET' || o.method === 'DELETE')) {
      const queryNames = op.params.filter((p) => p.in === 'query').map((p) => p.name);
      const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name);
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom(...queryNames, 'unknown'), junk, { maxKeys: 3 }),
          fc.dictionary(fc.constantFrom(...(pathNames.length ? pathNames : ['none'])), junk, { maxKeys: pathNames.length }),
          async (query, pathValues) => {
            const before = await store.headPosition();
            const reply = await service.request(
              op.method,
              url(op, pathValues as Record<string, string>, query as Record<string, string>),
              credentials(op.path),
            );
            await expectRefusedOrFine(op, reply, before, `${JSON.stringify(pathValues)} ${JSON.stringify(query)}`.slice(0, 200));
          },
        ),
        { numRuns: RUNS_PER_ROUTE, seed: 20261122, endOnFailure: true },
      );
    }
  });

  it('text with a lone surrogate in any property is a 400 naming it, on every route with a body', async () => {
    for (const op of operations.filter((o) => o.body)) {
      for (const property of Object.keys(op.body!.properties ?? {})) {
        const before = await store.headPosition();
        // JSON.stringify escapes it (\ud800): valid JSON, but not text UTF-8 can carry.
        const reply = await service.request(op.method, url(op, {}, {}), { body: { [property]: 'a\ud800b@example.com' }, ...credentials(op.path) });
        await expectRefusedOrFine(op, reply, before, `${property}: lone surrogate`);
        expect({ route: `${op.method} ${op.path}`, property, status: reply.status }).toEqual({ route: `${op.method} ${op.path}`, property, status: 400 });
      }
    }
    // Two ids that UTF-8 would make equal stay apart: the second is refused, not merged into the first.
    expect((await service.post('/v2/customers', { account_id: 'x\ufffd', first_name: 'Alice' }, { auth: m.bearer })).status).toBe(201);
    const merged = await service.post('/v2/customers', { account_id: 'x\ud800', first_name: 'Mallory' }, { auth: m.bearer });
    expect(merged.status).toBe(400);
    expect(merged.body.errors).toEqual([expect.objectContaining({ property: 'account_id', code: 'invalid' })]);
    const alice = (await service.get(`/v2/customers?account_id=${encodeURIComponent('x\ufffd')}`, { auth: m.bearer })).body.results;
    expect(alice.map((c: { first_name: string }) => c.first_name)).toEqual(['Alice']);
  });

  it('an email address with a control character (CR, LF, tab, DEL…) in its quoted local part is a 400 naming it, wherever v1, v2, the admin API and the browser routes take one', async () => {
    // class-validator's isEmail takes these; no SMTP server does (nodemailer makes CR and LF spaces, the server answers 501).
    const withControls = [
      '"r\r\nBcc: x@evil.test"@example.com',
      'moc.elpmaxe\u202E@example.com',
      '"a\nb"@example.com',
      '"a\tb"@example.com',
      '"a\u0001b"@example.com',
      '"a\u001bb"@example.com',
      '"a\u007fb"@example.com',
    ];
    const widgetId = Number(ids.widget_id);
    const good = 'ok@example.com';
    const routes: [string, string, (bad: string) => Record<string, unknown>, string][] = [
      ['POST', '/v2/shares', (bad) => ({ widget_id: widgetId, reward_email_address: bad, email_recipients: [good] }), 'reward_email_address'],
      ['POST', '/v2/shares', (bad) => ({ widget_id: widgetId, reward_email_address: good, email_recipients: [good, bad] }), 'email_recipients.1'],
      ['POST', '/v1/shares', (bad) => ({ campaign_id: widgetId, reward_email_address: bad, email_recipients: [good] }), 'reward_email_address'],
      ['POST', '/v1/shares', (bad) => ({ campaign_id: widgetId, reward_email_address: good, email_recipients: [bad] }), 'email_recipients.0'],
      ['POST', '/v2/customers', (bad) => ({ account_id: 'control-characters', email_address: bad }), 'email_address'],
      ['POST', '/v2/purchases', (bad) => ({ order_id: 'control-characters', email_address: bad }), 'email_address'],
      ['POST', '/v1/purchases', (bad) => ({ order_id: 'control-characters', campaign_id: widgetId, email_address: bad }), 'email_address'],
      ['POST', '/v2/email_opt_out_jobs', (bad) => ({ email_addresses: [good, bad] }), 'email_addresses.1'],
      ['POST', '/v1/email_opt_out_jobs', (bad) => ({ email_addresses: [bad] }), 'email_addresses.0'],
      ['POST', '/v2/email_captures', (bad) => ({ widget_id: widgetId, email_address: bad }), 'email_address'],
      ['POST', '/v2/personal_referral_links', (bad) => ({ widget_id: widgetId, email_address: bad }), 'email_address'],
      ['POST', '/v1/referral_codes', (bad) => ({ campaign: { id: widgetId }, email: bad }), 'email'],
      ['POST', '/v1/referral_codes', (bad) => ({ campaign: { id: widgetId }, customer: { id: 'control-characters', email: bad } }), 'customer.email'],
      ['POST', `/admin/merchants/${m.id}/vanity_links`, (bad) => ({ widget_id: widgetId, code: 'control-chars', email_address: bad }), 'email_address'],
      ['POST', '/browser/v1/email_captures', (bad) => ({ widget_id: widgetId, email_address: bad }), 'email_address'],
    ];
    for (const [method, path, body, property] of routes) {
      for (const bad of withControls) {
        const before = await store.headPosition();
        const reply = await service.request(method, path, { body: body(bad), ...credentials(path) });
        expect({ route: `${method} ${path}`, bad, status: reply.status, errors: reply.body.errors }).toEqual({
          route: `${method} ${path}`,
          bad,
          status: 400,
          errors: [
            {
              property,
              code: 'invalid',
              message: `${property} must be an email without control characters (CR, LF, NUL, tab…) or bidirectional formatting characters (U+202E…)`,
            },
          ],
        });
        expect((await store.readAll({ after: before })).filter((e) => !e.streamName.startsWith('webhook-reactor'))).toEqual([]);
      }
    }
    // A quoted local part of printable characters is an address SMTP takes, and still accepted.
    const quoted = await service.post('/v2/customers', { account_id: 'quoted-local-part', email_address: '"ann lee"@example.com' }, { auth: m.bearer });
    expect(quoted.status).toBe(201);
  });

  it("malformed HTTP framing gets the API's error body too", async () => {
    const { port } = new URL(service.url);
    /** Sends bytes as they are and reads the whole answer (the server closes the connection). */
    const exchange = (bytes: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.end(bytes);
      });
    const absolute = (method: string, target: string, body: string, headers = '') =>
      `${method} ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: ${m.bearer}\r\nContent-Type: application/json\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const cases: [string, string, number][] = [
      [
        'bad chunk size',
        'POST /v2/customers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
        400,
      ],
      ['negative Content-Length', 'POST /v2/customers HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n', 400],
      ['both framings', 'POST /v2/customers HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}', 400],
      ['NUL in a header', 'GET /v2/widgets HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 400],
      ['space in a header name', 'GET /v2/widgets HTTP/1.1\r\nHost: x\r\nX A: b\r\n\r\n', 400],
      ['headers too large', `GET /v2/widgets HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      // Links are built from Host: none (Node's own 400 had an empty body), or one that is no host.
      ['no Host', 'GET /v2/widgets HTTP/1.1\r\n\r\n', 400],
      ['no Host, HTTP/1.0', 'GET /v2/widgets HTTP/1.0\r\n\r\n', 400],
      ['no Host on the token route', 'POST /v2/tokens/merchant HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}', 400],
      ['a Host with a space', 'GET /v2/widgets HTTP/1.1\r\nHost: a b\r\n\r\n', 400],
      ['a Host with a path', 'GET /v2/widgets HTTP/1.1\r\nHost: shop.example/x\r\n\r\n', 400],
      ['two Host headers', 'GET /v2/widgets HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n', 400],
      // Answered by Node itself until the server handles them: a bare 417, and no answer at all.
      ['an Expect other than 100-continue', 'GET /v2/widgets HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n', 417],
      ['CONNECT', 'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n', 405],
      // The absolute form (RFC 9112 §3.2.2) is routed by its path, and checked as that path is:
      // a query on a write is refused (it recorded the purchase), and so is an Accept without JSON.
      ['a query on a write, in the absolute form', absolute('POST', 'http://x/v2/purchases?dry_run=true', '{"order_id":"absolute-form-1"}'), 400],
      ['Accept without JSON, in the absolute form', absolute('GET', 'http://x/v2/widgets', '', 'Accept: application/xml\r\n'), 406],
      // An unknown route is a 404 before its body is read.
      ['an unknown route with a bad body', 'POST /v2/nonexistent HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n\r\n{', 404],
    ];
    for (const [label, bytes, status] of cases) {
      const answer = await exchange(bytes);
      const [head, body] = answer.split('\r\n\r\n');
      expect({ label, status: head.split('\r\n')[0] }).toEqual({ label, status: expect.stringMatching(new RegExp(`^HTTP/1.1 ${status} `)) });
      expect({ label, body: JSON.parse(body) }).toEqual({ label, body: { errors: [expect.anything()] } });
    }
    expect((await service.get('/v2/purchases?order_id=absolute-form-1', { auth: m.bearer })).body.results).toEqual([]);
    // The absolute form of a good request is answered as its path.
    expect((await exchange(absolute('GET', 'http://x/v2/widgets', ''))).split('\r\n')[0]).toMatch(/^HTTP\/1.1 200 /);
  });

  it('numbers JSON parses but cannot keep: a link parameter of 1e400, a string id past 2^53', async () => {
    const before = await store.headPosition();
    const infinite = await service.request('POST', '/v2/personal_referral_links', {
      raw: `{"widget_id":${ids.widget_id},"email_address":"inf@example.com","link_parameters":{"a":"1","x":1e400}}`,
      headers: { 'content-type': 'application/json' },
      auth: m.bearer,
    });
    expect(infinite.status).toBe(400);
    // 9007199254740993 reads as 9007199254740992: another id than the one sent.
    const rounded = await service.post('/v2/purchases', { order_id: 'big-id-order', customer_id: '9007199254740993' }, { auth: m.bearer });
    expect(rounded.status).toBe(400);
    expect((await store.readAll({ after: before })).filter((e) => !e.streamName.startsWith('webhook-reactor'))).toEqual([]);
  });

  it('a fixed corpus of malformed requests on every route with a body', async () => {
    const corpus: [string, Record<string, string>, string][] = [
      ['{', { 'content-type': 'application/json' }, 'truncated JSON'],
      ['{"a":1}{"b":2}', { 'content-type': 'application/json' }, 'two documents'],
      ['[]', { 'content-type': 'application/json' }, 'array body'],
      ['"string"', { 'content-type': 'application/json' }, 'string body'],
      ['0', { 'content-type': 'application/json' }, 'number body'],
      ['null', { 'content-type': 'application/json' }, 'null body'],
      ['{"__proto__":{"admin":true}}', { 'content-type': 'application/json' }, '__proto__ key'],
      ['{"constructor":{"prototype":{"admin":true}}}', { 'content-type': 'application/json' }, 'constructor key'],
      ['a=1', { 'content-type': 'application/x-www-form-urlencoded' }, 'form body'],
      ['hi', { 'content-type': 'text/plain' }, 'text body'],
      ['{"x":1}', { 'content-type': 'application/xml' }, 'xml content type'],
      ['{"x":1}', { 'content-type': 'application/json; charset=latin1' }, 'bad charset'],
      ['', { 'content-type': 'application/json' }, 'empty JSON body'],
      ['{"zz_not_a_field":"' + 'é'.repeat(10) + '"}', { 'content-type': 'application/json' }, 'non-ASCII unknown property'],
      ['[' + '['.repeat(5000) + ']'.repeat(5000) + ']', { 'content-type': 'application/json' }, 'deep nesting'],
      // Inside an object body, past the parser: every walk over it must not overflow the stack (it was a 500).
      ['{"x":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}', { 'content-type': 'application/json' }, 'deep nesting in a property'],
      ['{"x":' + '{"a":'.repeat(50_000) + 'null' + '}'.repeat(50_000) + '}', { 'content-type': 'application/json' }, 'deep objects in a property'],
    ];
    const invalidUtf8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const oversized = Buffer.alloc(1024 * 1024 + 10, 0x20);
    for (const op of operations.filter((o) => o.body)) {
      for (const [raw, headers, label] of [
        ...corpus,
        [invalidUtf8, { 'content-type': 'application/json' }, 'invalid UTF-8'] as const,
        [oversized, { 'content-type': 'application/json' }, 'oversized'] as const,
      ]) {
        const before = await store.headPosition();
        const reply = await service.request(op.method, url(op, {}, {}), { raw, ...credentials(op.path, headers) });
        await expectRefusedOrFine(op, reply, before, label);
        // None of these is a valid body for any route.
        expect({ route: `${op.method} ${op.path}`, label, status: reply.status >= 400 && reply.status < 500 }).toEqual({
          route: `${op.method} ${op.path}`,
          label,
          status: true,
        });
      }
    }
    const hugeHeader = await fetch(`${service.url}/v2/widgets`, { headers: { authorization: m.bearer, 'x-junk': 'x'.repeat(20_000) } });
    expect(hugeHeader.status).toBeLessThan(500);
    const hugeAuth = await service.get('/v2/widgets', { auth: `Bearer ${'a'.repeat(10_000)}` });
    expect(hugeAuth.status).toBe(401);
    const hugeBasic = await service.get('/v1/campaigns', { auth: `Basic ${Buffer.from('a'.repeat(5000) + ':' + 'b'.repeat(5000)).toString('base64')}` });
    expect(hugeBasic.status).toBe(401);
  });
});
