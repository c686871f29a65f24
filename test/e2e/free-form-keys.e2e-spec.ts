/**
 * Free-form maps (link parameters, custom webhook headers) take any key as data (spec §4.2: "any
 * key-value pair may be set"), names every object inherits included: they are stored, answered,
 * put in the trackable link's redirect and sent in webhooks as they were given. Everywhere else
 * such a name is still an unknown property, and `__proto__` and `constructor.prototype` are
 * refused everywhere.
 */
import { createServer, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

/** Keys an object inherits (and `prototype`, which Nest's pipe used to strip), as link parameters. */
const INHERITED = {
  toString: 'x',
  constructor: 'y',
  valueOf: 'v',
  hasOwnProperty: 'h',
  isPrototypeOf: 'i',
  propertyIsEnumerable: 'p',
  toLocaleString: 'l',
  __defineGetter__: 'g',
  __lookupSetter__: 's',
  prototype: 'proto',
};

describe('inherited names as keys of free-form maps', () => {
  let service: Service;
  let m: TestMerchant;
  let widget: { id: number };
  let hook: { server: ReturnType<typeof createServer>; url: string; requests: { rawHeaders: string[]; body: string }[] };
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    service = await Service.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    m = await createMerchant(service);
    widget = await createWidget(service, m);
    const requests: { rawHeaders: string[]; body: string }[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        requests.push({ rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString('utf8') });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hook = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
  });
  afterAll(async () => {
    await service.stop();
    hook.server.closeAllConnections();
    await new Promise((resolve) => hook.server.close(resolve));
  });
  const v2 = () => ({ auth: m.bearer });
  const parameters = (encoded: string | null) => JSON.parse(encoded ?? 'null');

  it('round-trips through POST, GET and PATCH of a personal link, and into its redirect', async () => {
    const created = await service.post(
      '/v2/personal_referral_links',
      { widget_id: widget.id, email_address: 'inherited@example.com', link_parameters: INHERITED },
      v2(),
    );
    expect(created.status).toBe(201);
    const { code } = created.body.referral_link;
    expect(parameters(created.body.referral_link.link_parameters)).toEqual(INHERITED);
    expect(parameters((await service.get(`/v2/referral_links/${code}`, v2())).body.referral_link.link_parameters)).toEqual(INHERITED);
    const listed = (await service.get('/v2/personal_referral_links?email_address=inherited@example.com', v2())).body.results;
    expect(listed.map((l: { link_parameters: string }) => parameters(l.link_parameters))).toEqual([INHERITED]);

    const replaced = { constructor: 'c2', toString: 't2', utm_source: 'crm' };
    const patched = await service.patch(`/v2/personal_referral_links/${code}`, { link_parameters: replaced }, v2());
    expect(patched.status).toBe(200);
    expect(parameters(patched.body.referral_link.link_parameters)).toEqual(replaced);
    expect(parameters((await service.get(`/v2/referral_links/${code}`, v2())).body.referral_link.link_parameters)).toEqual(replaced);

    for (const method of ['GET', 'HEAD']) {
      const visit = await fetch(`${service.url}/l/${code}`, { method, redirect: 'manual' });
      expect(visit.status).toBe(302);
      const target = new URL(visit.headers.get('location')!);
      expect([...target.searchParams]).toEqual([...Object.entries(replaced), ['referral_code', code]]);
    }
  });

  it('is taken by every free-form map: v1 parameters, shares, vanity links, and the share.created webhook carries it', async () => {
    const endpoint = await service.post(`/admin/merchants/${m.id}/webhook_endpoints`, { url: `${hook.url}/shares`, events: ['share.created'] }, service.admin);
    expect(endpoint.status).toBe(201);

    const v1Code = await service.post(
      '/v1/referral_codes',
      { campaign: { id: widget.id }, email: 'v1-inherited@example.com', parameters: INHERITED },
      { auth: m.basic },
    );
    expect(v1Code.status).toBe(200);
    expect(parameters(v1Code.body.additional_link_parameters)).toEqual(INHERITED);

    const share = { reward_email_address: 'sharer@example.com', email_recipients: ['friend@example.com'], link_parameters: INHERITED };
    const v2Share = await service.post('/v2/shares', { widget_id: widget.id, ...share }, v2());
    expect(v2Share.status).toBe(201);
    expect(parameters(v2Share.body.share.link_parameters)).toEqual(INHERITED);
    expect(parameters((await service.get(`/v2/shares/${v2Share.body.share.id}`, v2())).body.share.link_parameters)).toEqual(INHERITED);
    // v1's body is v2's through a mapped type: the map is taken there too.
    const v1Share = await service.post('/v1/shares', { campaign_id: widget.id, ...share }, { auth: m.basic });
    expect(v1Share.status).toBe(201);

    const vanity = await service.post(
      `/admin/merchants/${m.id}/vanity_links`,
      { widget_id: widget.id, code: 'inherited-keys', email_address: 'vanity@example.com', link_parameters: INHERITED },
      service.admin,
    );
    expect(vanity.status).toBe(201);
    expect(parameters((await service.get('/v2/referral_links/inherited-keys', v2())).body.referral_link.link_parameters)).toEqual(INHERITED);

    const payloads = await eventually(async () => {
      const bodies = hook.requests.filter((r) => r.body.includes('share.created')).map((r) => JSON.parse(r.body));
      expect(bodies).toHaveLength(2);
      return bodies;
    });
    for (const payload of payloads) expect(payload.data.link_parameters).toEqual(INHERITED);
  });

  it('takes them as custom header names, stores them and sends them', async () => {
    const headers = { constructor: 'a', toString: 'b', valueOf: 'c', hasOwnProperty: 'd' };
    const put = await service.put(`/admin/merchants/${m.id}/custom_headers`, { headers }, service.admin);
    expect(put.status).toBe(200);
    expect(put.body.custom_headers.headers).toEqual(headers);
    expect((await service.get(`/admin/merchants/${m.id}/custom_headers`, service.admin)).body.custom_headers.headers).toEqual(headers);
    await service.post(`/admin/merchants/${m.id}/webhook_endpoints`, { url: `${hook.url}/headers`, events: ['email.opted_out'] }, service.admin);
    await service.post('/v2/email_opt_out_jobs', { email_addresses: ['headers@example.com'] }, v2());
    const sent = await eventually(async () => {
      const request = hook.requests.find((r) => r.body.includes('email.opted_out'));
      expect(request).toBeDefined();
      return request!;
    });
    const pairs = (raw: string[]) => Object.fromEntries(raw.flatMap((v, i) => (i % 2 === 0 ? [[v, raw[i + 1]]] : [])));
    expect(pairs(sent.rawHeaders)).toMatchObject(headers);
  });

  it('is still an unknown property outside free-form maps, and __proto__ or constructor.prototype is refused everywhere', async () => {
    const reports = async (method: string, path: string, raw: string, auth = m.bearer) => {
      const r = await service.request(method, path, { raw, headers: { 'content-type': 'application/json' }, auth });
      return [r.status, (r.body.errors as ({ property: string; code: string } | string)[]).map((e) => (typeof e === 'string' ? e : `${e.property}:${e.code}`))];
    };
    const proto = 'request bodies may not have a "__proto__" key or a "constructor" key holding "prototype"';
    expect(await reports('POST', '/v2/customers', '{"account_id":"a","toString":"x"}')).toEqual([400, ['toString:unrecognized_property']]);
    expect(
      await reports('POST', '/v1/referral_codes', `{"campaign":{"id":${widget.id},"valueOf":1},"customer":{"id":"a","constructor":"x"}}`, m.basic),
    ).toEqual([400, ['campaign.valueOf:unrecognized_property', 'customer.constructor:unrecognized_property']]);
    expect(await reports('POST', '/v2/purchases', '{"order_id":"inh-1","products":[{"sku":"a","quantity":1,"price":1,"hasOwnProperty":true}]}')).toEqual([
      400,
      ['products.0.hasOwnProperty:unrecognized_property'],
    ]);
    // A key of a map is data; a value in it is still a scalar.
    expect(
      await reports('POST', '/v2/personal_referral_links', `{"widget_id":${widget.id},"email_address":"n@example.com","link_parameters":{"a":{"toString":1}}}`),
    ).toEqual([400, ['link_parameters:invalid']]);
    expect(await reports('PUT', `/admin/merchants/${m.id}/custom_headers`, '{"headers":{"X-A":{"constructor":"y"}}}', service.admin.auth)).toEqual([
      400,
      ['headers.X-A:wrong_type'],
    ]);
    for (const map of ['{"__proto__":"x"}', '{"__proto__":{"a":1}}', '{"constructor":{"prototype":{"a":1}}}']) {
      expect(
        await reports('POST', '/v2/personal_referral_links', `{"widget_id":${widget.id},"email_address":"p@example.com","link_parameters":${map}}`),
      ).toEqual([400, [proto]]);
      expect(await reports('PUT', `/admin/merchants/${m.id}/custom_headers`, `{"headers":${map}}`, service.admin.auth)).toEqual([400, [proto]]);
    }
    expect((await service.get('/v2/personal_referral_links?email_address=p@example.com', v2())).body.results).toEqual([]);
  });

  it('pollutes no prototype', () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
    const plain: Record<string, unknown> = {};
    expect([plain.constructor, plain.toString, plain.y, plain.proto]).toEqual([Object, Object.prototype.toString, undefined, undefined]);
  });
});
