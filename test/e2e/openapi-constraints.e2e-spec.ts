/**
 * The OpenAPI document states what the validation refuses, so that a request valid against it is
 * accepted (what Schemathesis's positive_data_acceptance check and a generated client rely on). Each
 * case is an input Schemathesis sent (.ci/schemathesis) that the service refused while the document
 * allowed it: the document now excludes it, and the service still refuses it.
 */
import { Service, TestMerchant, createMerchant } from '../support/service.js';

type Schema = Record<string, any>;

describe('OpenAPI document: what the validation refuses', () => {
  let service: Service;
  let merchant: TestMerchant;
  let doc: { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };
  const parameter = (path: string, method: string, name: string): Schema =>
    (doc.paths[path][method].parameters as Schema[]).find((p) => p.name === name)!.schema;
  const schema = (name: string) => doc.components.schemas[name];

  beforeAll(async () => {
    service = await Service.start();
    merchant = await createMerchant(service);
    doc = (await service.get('/docs-json')).body;
  });
  afterAll(async () => {
    await service.stop();
  });

  it('documents the 406 on every API operation, and answers it', async () => {
    const api = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(() => /^\/(v1|v2|admin|browser)\//.test(path))
        .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op.responses['406']?.content?.['application/json']?.schema !== undefined]),
    );
    expect(api.length).toBeGreaterThan(90);
    expect(api.filter(([, documented]) => !documented)).toEqual([]);
    const reply = await service.request('DELETE', '/v2/tokens/merchant', { auth: merchant.bearer, headers: { accept: 'text/html' }, body: {} });
    expect(reply.status).toBe(406);
    expect(reply.body.errors).toEqual([expect.stringMatching(/application\/json/)]);
  });

  it('closes every request body schema: a property the body does not list is refused', async () => {
    expect(schema('MerchantKeysDto').additionalProperties).toBe(false);
    expect(schema('UpsertCustomerDto').additionalProperties).toBe(false);
    expect(schema('ProductDto').additionalProperties).toBe(false);
    // Free-form maps stay open.
    expect(schema('CreatePersonalLinkDto').properties.link_parameters.additionalProperties).not.toBe(false);
    const reply = await service.post('/v2/tokens/merchant', { access_key: merchant.accessKey, secret_key: merchant.secretKey, d: false });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([expect.objectContaining({ property: 'd', code: 'unrecognized_property' })]);
  });

  it('gives lengths, list sizes and minimums of the validation rules', async () => {
    expect(schema('UpsertCustomerDto').properties.account_id).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(schema('CouponCodesDto').properties.codes.minItems).toBe(1);
    expect(schema('CreateCouponBankDto').properties.codes.minItems).toBe(1);
    expect(schema('ProductDto').properties.quantity.minimum).toBe(0);
    expect(parameter('/v2/customers', 'get', 'name')).toMatchObject({ minLength: 1 });
    const reply = await service.get('/v2/customers?name=', { auth: merchant.bearer });
    expect(reply.status).toBe(400);
  });

  it('excludes control and bidirectional formatting characters from identifiers, in paths, queries and bodies', async () => {
    const pattern = parameter('/v1/purchases/{id}', 'get', 'id').pattern as string;
    expect(parameter('/admin/merchants/{merchant_id}', 'get', 'merchant_id').pattern).toBe(pattern);
    expect(parameter('/v1/purchases', 'get', 'order_id').pattern).toBe(pattern);
    expect(schema('UpsertCustomerDto').properties.account_id.pattern).toBe(pattern);
    const identifier = new RegExp(pattern);
    expect(['123', 'ORD-1001', 'ann@example.com', 'é'].filter((v) => !identifier.test(v))).toEqual([]);
    expect(['+\u009d\u001e', 'a\u202Eb', '\u0017x'].filter((v) => identifier.test(v))).toEqual([]);
    const reply = await service.get('/v1/purchases/%2B%C2%9D%1E', { auth: merchant.basic });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([expect.objectContaining({ property: 'id', code: 'invalid' })]);
  });

  it('types the paging, date and id-filter query parameters as the service reads them', async () => {
    expect(parameter('/v1/campaigns', 'get', 'offset')).toMatchObject({ type: 'integer', minimum: 0 });
    expect(parameter('/v1/campaigns', 'get', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(parameter('/v1/campaigns', 'get', 'to_date')).toMatchObject({ type: 'string', format: 'date' });
    expect(parameter('/v2/widgets', 'get', 'from')).toMatchObject({ type: 'string', format: 'date' });
    expect(parameter('/v1/shares', 'get', 'campaign_id')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(parameter('/v2/audit/events', 'get', 'limit')).toMatchObject({ type: 'integer' });
    // What Schemathesis sent while they were documented as any string.
    const reply = await service.get('/v1/campaigns?offset=%C3%93&to_date=x', { auth: merchant.basic });
    expect(reply.body.errors).toEqual(['offset must be a non-negative integer', 'to_date must be a date in the form YYYY-MM-DD']);
  });

  it("states the audit routes' entity, type and stream forms", async () => {
    const entity = new RegExp(parameter('/v2/audit/entities/{entity}', 'get', 'entity').pattern);
    expect(entity.test('customer:123')).toBe(true);
    expect(entity.test('\u0016íH:1')).toBe(false);
    const types = parameter('/v2/audit/events', 'get', 'type');
    expect(types.type).toBe('array');
    expect(new RegExp(types.items.pattern).test('customer.created,widget.created')).toBe(true);
    expect(new RegExp(types.items.pattern).test('1x')).toBe(false);
    expect(parameter('/v2/audit/events', 'get', 'stream')).toMatchObject({ minLength: 1, maxLength: 500 });
    const reply = await service.get('/v2/audit/entities/%16%C3%ADH:1', { auth: merchant.bearer });
    expect(reply.status).toBe(400);
  });

  it("states as_of's parameter forms and a vanity code's characters", async () => {
    const asOf = (name: string) => new RegExp(parameter('/admin/merchants/{merchant_id}/as_of', 'get', name).pattern);
    expect(asOf('position').test('397416654323998580036648')).toBe(true);
    expect(asOf('position').test('%C3%80')).toBe(false);
    expect(asOf('at').test('2026-05-01T08:00:00Z')).toBe(true);
    expect(asOf('at').test('0000-00-00T00:00Z')).toBe(false);
    expect(asOf('path').test('/v2/customers?limit=5')).toBe(true);
    expect(asOf('path').test('147711039080442')).toBe(false);
    const code = new RegExp(schema('VanityLinkDto').properties.code.pattern);
    expect(code.test('jane-loves-acme')).toBe(true);
    expect(code.test('a b')).toBe(false);
    const reply = await service.get(`/admin/merchants/${merchant.id}/as_of?path=%2Fv1%2F&at=0000-00-00T00%3A00Z`, service.admin);
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([expect.stringMatching(/^at must be an ISO 8601 time/)]);
  });
});
