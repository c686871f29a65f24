import { ManualClock } from '../../src/platform/clock.js';
import { Service, createMerchant } from '../support/service.js';

describe('authentication (spec §5)', () => {
  const clock = new ManualClock(new Date('2026-06-01T00:00:00.000Z'));
  let service: Service;
  beforeAll(async () => {
    service = await Service.start({ clock });
  });
  afterAll(async () => {
    await service.stop();
  });

  describe('v1 Basic', () => {
    it('accepts the access key and secret key, and refuses anything else with 401 and a challenge', async () => {
      const m = await createMerchant(service);
      expect((await service.get('/v1/campaigns', { auth: m.basic })).status).toBe(200);
      const wrongSecret = `Basic ${Buffer.from(`${m.accessKey}:sk_wrong`).toString('base64')}`;
      for (const auth of [undefined, wrongSecret, 'Basic !!!', `Basic ${Buffer.from('nocolon').toString('base64')}`, m.bearer]) {
        const r = await service.get('/v1/campaigns', { auth });
        expect(r.status).toBe(401);
        expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
        expect(r.body.errors).toHaveLength(1);
      }
    });
  });

  describe('v2 tokens', () => {
    it('issues a merchant token for valid keys only', async () => {
      const m = await createMerchant(service);
      expect((await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: 'sk_nope' })).status).toBe(401);
      expect((await service.post('/v2/tokens/merchant', { access_key: 'ak_nope', secret_key: m.secretKey })).status).toBe(401);
      expect((await service.post('/v2/tokens/merchant', { access_key: m.accessKey })).status).toBe(400);
      const r = await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: m.secretKey });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(['token']);
    });

    it('accepts Bearer and a bare token value, and refuses tampered tokens', async () => {
      const m = await createMerchant(service);
      expect((await service.get('/v2/widgets', { auth: m.bearer })).status).toBe(200);
      expect((await service.get('/v2/widgets', { auth: m.token })).status).toBe(200);
      const tampered = m.token.slice(0, -2) + (m.token.endsWith('AA') ? 'BB' : 'AA');
      expect((await service.get('/v2/widgets', { auth: tampered })).status).toBe(401);
      expect((await service.get('/v2/widgets', { auth: 'Bearer garbage' })).status).toBe(401);
      expect((await service.get('/v2/widgets')).status).toBe(401);
    });

    it("never lets one merchant's token act for another", async () => {
      const a = await createMerchant(service);
      const b = await createMerchant(service);
      const customer = await service.post('/v2/customers', { account_id: 'only-a' }, { auth: a.bearer });
      expect((await service.get(`/v2/customers/${customer.body.customer.id}`, { auth: b.bearer })).status).toBe(404);
      const list = await service.get('/v2/customers', { auth: b.bearer });
      expect(list.body.results).toEqual([]);
      expect((await service.post('/v2/tokens/customer', { customer_id: customer.body.customer.id }, { auth: b.bearer })).status).toBe(404);
    });

    it('DELETE /v2/tokens/merchant revokes every outstanding token, and new ones work', async () => {
      const m = await createMerchant(service);
      const second = (await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: m.secretKey })).body.token;
      const c = await service.post('/v2/customers', { account_id: 'c1' }, { auth: m.bearer });
      const customerToken = (await service.post('/v2/tokens/customer', { customer_id: c.body.customer.id }, { auth: m.bearer })).body.token;
      // Keys must be the caller's own.
      const other = await createMerchant(service);
      const foreign = await service.delete('/v2/tokens/merchant', { access_key: other.accessKey, secret_key: other.secretKey }, { auth: m.bearer });
      expect(foreign.status).toBe(401);
      const revoked = await service.delete('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: m.secretKey }, { auth: m.bearer });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ success: true });
      for (const token of [m.token, second, customerToken]) {
        expect((await service.get('/v2/conversions_probe_is_not_needed', { auth: `Bearer ${token}` })).status).toBe(404);
        expect((await service.get('/v2/widgets', { auth: `Bearer ${token}` })).status).toBe(401);
      }
      const fresh = await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: m.secretKey });
      expect((await service.get('/v2/widgets', { auth: `Bearer ${fresh.body.token}` })).status).toBe(200);
      // The other merchant is untouched.
      expect((await service.get('/v2/widgets', { auth: other.bearer })).status).toBe(200);
    });

    it('DELETE /v2/tokens/merchant sent several times with one token revokes once: a token issued after the first answer stays valid', async () => {
      const m = await createMerchant(service);
      const keys = { access_key: m.accessKey, secret_key: m.secretKey };
      const answers = await Promise.all(Array.from({ length: 8 }, () => service.delete('/v2/tokens/merchant', keys, { auth: m.bearer })));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s !== 200)).toEqual(Array(7).fill(401));
      const fresh = (await service.post('/v2/tokens/merchant', keys)).body.token;
      // A late retry with the revoked token revokes nothing either.
      expect((await service.delete('/v2/tokens/merchant', keys, { auth: m.bearer })).status).toBe(401);
      expect((await service.get('/v2/widgets', { auth: `Bearer ${fresh}` })).status).toBe(200);
    });

    it('scopes a customer token to the endpoints of §5.2 rule 4 and expires it after 10 minutes', async () => {
      const m = await createMerchant(service);
      const c = await service.post('/v2/customers', { account_id: 'scoped' }, { auth: m.bearer });
      expect((await service.post('/v2/tokens/customer', { customer_id: 'abc' }, { auth: m.bearer })).status).toBe(400);
      expect((await service.post('/v2/tokens/customer', { customer_id: 987654321 }, { auth: m.bearer })).status).toBe(404);
      const issued = await service.post('/v2/tokens/customer', { customer_id: String(c.body.customer.id) }, { auth: m.bearer });
      expect(issued.status).toBe(200);
      const auth = `Bearer ${issued.body.token}`;
      // Not on the customer-token list: refused with 403.
      for (const path of ['/v2/customers', '/v2/widgets', `/v2/customers/${c.body.customer.id}`]) {
        const r = await service.get(path, { auth });
        expect(r.status).toBe(403);
      }
      expect((await service.post('/v2/tokens/customer', { customer_id: c.body.customer.id }, { auth })).status).toBe(403);
      clock.advance(10 * 60 * 1000 - 1000);
      expect((await service.get('/v2/customers', { auth })).status).toBe(403);
      clock.advance(1000);
      const expired = await service.get('/v2/customers', { auth });
      expect(expired.status).toBe(401);
      expect(expired.body.errors[0]).toMatch(/expired/);
    });
  });
});
