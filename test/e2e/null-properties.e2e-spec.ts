/**
 * `null` in a request body: where the API documents null as a value (PATCH fields it clears,
 * nullable settings) it is that value; anywhere else it means the same as leaving the property
 * out (docs/api-decisions.md). Before, such nulls passed validation (optional) and reached
 * the handlers: 500s, "customer 0 not found", a coupon code ignored.
 */
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { Service, TestMerchant, createMerchant, createWidget } from '../support/service.js';

describe('null in request bodies', () => {
  let service: Service;
  let m: TestMerchant;
  let widget: { id: number };
  let store: EventStore;
  beforeAll(async () => {
    service = await Service.start();
    m = await createMerchant(service);
    widget = await createWidget(service, m);
    store = service.app.get<EventStore>(EVENT_STORE);
  });
  afterAll(async () => {
    await service.stop();
  });
  const v2 = () => ({ auth: m.bearer });
  const v1 = () => ({ auth: m.basic });

  it('POST /v2/personal_referral_links: a null email is no email (400: neither given), a null customer_id is none', async () => {
    const before = await store.headPosition();
    const refused = await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: null }, v2());
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(expect.arrayContaining([expect.anything()]));
    expect(await store.headPosition()).toBe(before);
    const byEmail = await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: null, email_address: 'null-adv@example.com' }, v2());
    expect(byEmail.status).toBe(201);
    expect(byEmail.body.referral_link).toMatchObject({ type: 'email_personal_url' });
  });

  it('POST /v1/referral_codes: customer.id null with an email makes an email PURL; a null email with a customer id is ignored', async () => {
    const emailOnly = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: null }, email: 'zz@example.com' }, v1());
    expect(emailOnly.status).toBe(200);
    expect(emailOnly.body.type).toBe('email_personal_url');
    const byCustomer = await service.post(
      '/v1/referral_codes',
      { campaign: { id: widget.id }, customer: { id: 'acct-null', email: 'acct-null@example.com' }, email: null },
      v1(),
    );
    expect(byCustomer.status).toBe(200);
    expect(byCustomer.body.type).toBe('customer_personal_url');
    // customer.email null on an existing customer does not erase the stored address.
    const again = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: 'acct-null', email: null } }, v1());
    expect(again.status).toBe(200);
    expect(again.body.code).toBe(byCustomer.body.code);
    const info = await service.get('/v1/customer_info?account_id=acct-null', v1());
    expect(info.body.email).toBe('acct-null@example.com');
  });

  it('POST /v2/purchases: null customer_id, widget_id and coupon_code are none (not "customer 0")', async () => {
    const reply = await service.post(
      '/v2/purchases',
      { order_id: 'NULLS-1', customer_id: null, widget_id: null, coupon_code: null, referral_code: null },
      v2(),
    );
    expect(reply.status).toBe(201);
    expect(reply.body.purchase).toMatchObject({ order_id: 'NULLS-1', customer: null, widget: null });
    // Inside a nested object too: a product's quantity is required, so null there is a missing quantity.
    const nested = await service.post('/v2/purchases', { order_id: 'NULLS-3', products: [{ sku: 'A', quantity: null, price: 1 }] }, v2());
    expect(nested.status).toBe(400);
    expect(nested.body.errors).toEqual([expect.objectContaining({ property: 'products.0.quantity', code: 'missing' })]);
  });

  it('POST /v2/conversions: a null referral_code lets the coupon code attribute the purchase', async () => {
    await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Nulls', codes: ['NULL-CPN-1'] }, service.admin);
    const link = await service.post(
      '/v1/referral_codes',
      { campaign: { id: widget.id }, customer: { id: 'cpn-adv', email: 'cpn-adv@example.com' }, coupon_code: 'NULL-CPN-1' },
      v1(),
    );
    expect(link.status).toBe(200);
    const p = (await service.post('/v2/purchases', { order_id: 'NULLS-2' }, v2())).body.purchase;
    const made = await service.post('/v2/conversions', { purchase_id: p.id, referral_code: null, coupon_code: 'NULL-CPN-1' }, v2());
    expect(made.status).toBe(201);
    expect(made.body.conversion).toMatchObject({ purchase: `${service.url}/v2/purchases/${p.id}`, advocate_email_address: 'cpn-adv@example.com' });
  });

  it('an id of another JSON type is wrong_type, a bad id value invalid; inherited names are unknown properties', async () => {
    for (const [value, code] of [
      [true, 'wrong_type'],
      [[1], 'wrong_type'],
      [{}, 'wrong_type'],
      [0, 'invalid'],
      ['12a', 'invalid'],
    ] as const) {
      const reply = await service.post('/v2/purchases', { order_id: 'IDS-1', customer_id: value }, v2());
      expect({ value, status: reply.status, errors: reply.body.errors }).toEqual({
        value,
        status: 400,
        errors: [expect.objectContaining({ property: 'customer_id', code })],
      });
    }
    for (const key of ['toString', 'hasOwnProperty', 'valueOf']) {
      const body = await service.post('/v2/purchases', { order_id: 'IDS-2', [key]: 1, products: [{ sku: 'A', quantity: 1, price: 1, [key]: 1 }] }, v2());
      expect(body.status).toBe(400);
      expect(body.body.errors).toEqual([
        expect.objectContaining({ property: key, code: 'unrecognized_property' }),
        expect.objectContaining({ property: `products.0.${key}`, code: 'unrecognized_property' }),
      ]);
    }
    expect((await service.get('/v2/purchases?order_id=IDS-2', v2())).body.results).toEqual([]);
  });

  it('POST /v2/customers on an existing account: null still clears a field documented as nullable', async () => {
    await service.post('/v2/customers', { account_id: 'clear-me', email_address: 'clear@example.com', first_name: 'Ann' }, v2());
    const updated = await service.post('/v2/customers', { account_id: 'clear-me', first_name: null }, v2());
    expect(updated.status).toBe(200);
    expect(updated.body.customer.first_name).toBeNull();
    expect(updated.body.customer.email_address).toBe('clear@example.com');
  });

  it('PATCH /admin/merchants/{id}: null on a property that cannot be cleared is a 400 and changes nothing', async () => {
    const before = (await service.get(`/admin/merchants/${m.id}`, service.admin)).body.merchant;
    for (const body of [{ name: null, can_see_recipients: true }, { can_see_recipients: null }]) {
      const r = await service.patch(`/admin/merchants/${m.id}`, body, service.admin);
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await service.get(`/admin/merchants/${m.id}`, service.admin)).body.merchant).toEqual(before);
  });
});
