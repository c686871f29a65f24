import { ServiceUnavailableError, written } from './errors.js';

describe('written', () => {
  it('passes the document a write made through', () => {
    const doc = { id: 1 };
    expect(written(doc, 'coupon bank 1', 'GET /x/1')).toBe(doc);
  });

  it('is unavailable, with a time to retry and where to read, when the read models have not reached the write', () => {
    for (const missing of [null, undefined]) {
      let thrown: unknown;
      try {
        written(missing, 'coupon bank 7', 'GET /admin/merchants/3/coupon_banks/7');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ServiceUnavailableError);
      expect((thrown as ServiceUnavailableError).advice).toEqual({ 'retry-after': '5' });
      expect((thrown as ServiceUnavailableError).errors).toEqual([
        expect.stringMatching(/^the coupon bank 7 was recorded, .*GET \/admin\/merchants\/3\/coupon_banks\/7 shortly, and do not send the request again$/),
      ]);
    }
  });
});
