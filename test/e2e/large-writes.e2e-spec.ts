/**
 * Events that write many read-model documents at once: a coupon bank of 10,000 codes (the most
 * a create takes) is answered from complete read models, on the embedded store and, with
 * E2E_MONGO_URL, on a MongoDB-protocol server, where its documents go in bulk writes.
 */
import { Service, createMerchant, createWidget } from '../support/service.js';

describe('large writes', () => {
  let service: Service;
  beforeAll(async () => {
    service = await Service.start();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('creates a coupon bank of 10,000 codes and answers from its whole read model at once', async () => {
    const m = await createMerchant(service);
    const widget = await createWidget(service, m);
    const codes = Array.from({ length: 10_000 }, (_, i) => `BULK-${String(i).padStart(5, '0')}`);
    const created = await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Bulk', codes }, service.admin);
    expect(created.status).toBe(201);
    expect(created.body.coupon_bank).toMatchObject({ name: 'Bulk', codes_count: 10_000, available_count: 10_000 });
    const bankId = created.body.coupon_bank.id;
    // Every code is there: the last one can be taken by name, and the bank hands out its first.
    const last = await service.post(
      '/v1/referral_codes',
      { campaign: { id: widget.id }, customer: { id: 'bulk-last' }, coupon_code: 'BULK-09999' },
      { auth: m.basic },
    );
    expect([last.status, last.body.coupon_codes]).toEqual([200, ['BULK-09999']]);
    const drawn = await service.post(
      '/v1/referral_codes',
      { campaign: { id: widget.id }, customer: { id: 'bulk-first' }, coupon_bank_id: bankId },
      { auth: m.basic },
    );
    expect([drawn.status, drawn.body.coupon_codes]).toEqual([200, ['BULK-00000']]);
    const after = await service.get(`/admin/merchants/${m.id}/coupon_banks/${bankId}`, service.admin);
    expect(after.body.coupon_bank).toMatchObject({ codes_count: 10_000, available_count: 9_998 });
  }, 120_000);
});
