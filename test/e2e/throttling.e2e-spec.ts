/**
 * Repeated bad credentials are throttled per address and access key: 429 with Retry-After, even for
 * the right secret of that key meanwhile; other merchants' keys from the address keep working until
 * the address's failures over every key reach ADDRESS_FACTOR times the limit; the admin token is
 * never locked by merchant-key failures. Behind a proxy named in TRUST_PROXY the address is the
 * forwarded client's, so an attacker cannot lock an owner out from another address.
 */
import { ADDRESS_FACTOR } from '../../src/platform/auth/auth-failure-limiter.js';
import { Service, createMerchant } from '../support/service.js';

describe('throttling of bad credentials', () => {
  it('blocks v1 Basic guessing after the limit, including correct keys, with Retry-After', async () => {
    const service = await Service.start({ env: { AUTH_FAILURES_PER_MINUTE: '3' } });
    try {
      const m = await createMerchant(service);
      const wrong = `Basic ${Buffer.from(`${m.accessKey}:sk_guess`).toString('base64')}`;
      for (let i = 0; i < 2; i += 1) expect((await service.get('/v1/campaigns', { auth: wrong })).status).toBe(401);
      // Missing credentials are not guesses and are not counted.
      for (let i = 0; i < 5; i += 1) expect((await service.get('/v1/campaigns')).status).toBe(401);
      expect((await service.get('/v1/campaigns', { auth: wrong })).status).toBe(401);
      const blocked = await service.get('/v1/campaigns', { auth: wrong });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(blocked.body.errors[0]).toMatch(/too many failed authentication attempts/);
      expect((await service.get('/v1/campaigns', { auth: m.basic })).status).toBe(429);
      expect((await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: m.secretKey })).status).toBe(429);
      // Tokens already issued keep working: v2 calls do not guess keys.
      expect((await service.get('/v2/widgets', { auth: m.bearer })).status).toBe(200);
      // Another merchant behind the same address (a gateway, an integrator's server) is not locked out.
      const neighbour = await createMerchant(service);
      expect((await service.get('/v1/campaigns', { auth: neighbour.basic })).status).toBe(200);
      expect((await service.post('/v2/tokens/merchant', { access_key: neighbour.accessKey, secret_key: neighbour.secretKey })).status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('blocks an address that sprays keys, every key included, once its failures reach the address limit', async () => {
    const limit = 2;
    const service = await Service.start({ env: { AUTH_FAILURES_PER_MINUTE: String(limit) } });
    try {
      const m = await createMerchant(service);
      const guess = (i: number) => `Basic ${Buffer.from(`ak_sprayed_${i}:sk_guess`).toString('base64')}`;
      // One failure per key: no key reaches its limit, the address reaches its own.
      for (let i = 0; i < limit * ADDRESS_FACTOR; i += 1) expect((await service.get('/v1/campaigns', { auth: guess(i) })).status).toBe(401);
      const blocked = await service.get('/v1/campaigns', { auth: guess(-1) });
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await service.get('/v1/campaigns', { auth: m.basic })).status).toBe(429);
      expect((await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: m.secretKey })).status).toBe(429);
    } finally {
      await service.stop();
    }
  });

  it('blocks admin token guessing after the limit, the right token too meanwhile', async () => {
    const service = await Service.start({ env: { AUTH_FAILURES_PER_MINUTE: '2' } });
    try {
      expect((await service.get('/admin/merchants/1')).status).toBe(401); // no token offered: not counted
      for (let i = 0; i < 2; i += 1) expect((await service.get('/admin/merchants/1', { auth: `Bearer guess-${i}` })).status).toBe(401);
      const blocked = await service.get('/admin/merchants/1', { auth: 'Bearer guess-3' });
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await service.get('/admin/merchants/1', service.admin)).status).toBe(429);
    } finally {
      await service.stop();
    }
  });

  it('counts credentials that name no access key apart from the admin token: they never lock the operators out', async () => {
    const service = await Service.start({ env: { AUTH_FAILURES_PER_MINUTE: '2' } });
    try {
      const m = await createMerchant(service);
      // A v2 token sent to v1 (no access key in it), and an empty access key at the token route.
      for (let i = 0; i < 2; i += 1) expect((await service.get('/v1/campaigns', { auth: m.bearer })).status).toBe(401);
      expect((await service.get('/v1/campaigns', { auth: m.bearer })).status).toBe(429);
      // Both name no key: one counter.
      expect((await service.post('/v2/tokens/merchant', { access_key: '', secret_key: 'x' })).status).toBe(429);
      expect((await service.get(`/admin/merchants/${m.id}`, service.admin)).status).toBe(200);
      expect((await service.get('/v1/campaigns', { auth: m.basic })).status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('blocks POST /v2/tokens/merchant guessing after the limit', async () => {
    const service = await Service.start({ env: { AUTH_FAILURES_PER_MINUTE: '2' } });
    try {
      const m = await createMerchant(service);
      for (let i = 0; i < 2; i += 1) expect((await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: `sk_${i}` })).status).toBe(401);
      const blocked = await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: 'sk_x' });
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await service.stop();
    }
  });

  it('spraying merchant keys from one address locks those keys, never the admin token', async () => {
    const limit = 2;
    const service = await Service.start({ env: { AUTH_FAILURES_PER_MINUTE: String(limit) } });
    try {
      const m = await createMerchant(service);
      const guess = (i: number) => `Basic ${Buffer.from(`ak_sprayed_${i}:sk_guess`).toString('base64')}`;
      for (let i = 0; i < limit * ADDRESS_FACTOR + 5; i += 1) expect([401, 429]).toContain((await service.get('/v1/campaigns', { auth: guess(i) })).status);
      expect((await service.get('/v1/campaigns', { auth: m.basic })).status).toBe(429);
      expect((await service.get(`/admin/merchants/${m.id}`, service.admin)).status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('behind a trusted proxy, a lockout from one forwarded address leaves the owner working from another', async () => {
    const service = await Service.start({ env: { AUTH_FAILURES_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' } });
    try {
      const m = await createMerchant(service);
      const attacker = { 'x-forwarded-for': '203.0.113.7' };
      const owner = { 'x-forwarded-for': '198.51.100.9' };
      const wrong = `Basic ${Buffer.from(`${m.accessKey}:sk_guess`).toString('base64')}`;
      for (let i = 0; i < 2; i += 1) expect((await service.get('/v1/campaigns', { auth: wrong, headers: attacker })).status).toBe(401);
      expect((await service.get('/v1/campaigns', { auth: wrong, headers: attacker })).status).toBe(429);
      expect((await service.get('/v1/campaigns', { auth: m.basic, headers: attacker })).status).toBe(429);
      expect((await service.get('/v1/campaigns', { auth: m.basic, headers: owner })).status).toBe(200);
      expect((await service.post('/v2/tokens/merchant', { access_key: m.accessKey, secret_key: m.secretKey }, { headers: owner })).status).toBe(200);
      // Spraying from the attacker's address: the owner's address and the admin token are untouched.
      const guess = (i: number) => `Basic ${Buffer.from(`ak_sprayed_${i}:sk_guess`).toString('base64')}`;
      for (let i = 0; i < 2 * ADDRESS_FACTOR; i += 1) await service.get('/v1/campaigns', { auth: guess(i), headers: attacker });
      const other = await createMerchant(service, 'Other shop');
      expect((await service.get('/v1/campaigns', { auth: other.basic, headers: attacker })).status).toBe(429);
      expect((await service.get('/v1/campaigns', { auth: other.basic, headers: owner })).status).toBe(200);
      expect((await service.get(`/admin/merchants/${m.id}`, { ...service.admin, headers: attacker })).status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('without TRUST_PROXY, X-Forwarded-For is not believed: a new forwarded address per guess does not escape the limit', async () => {
    const service = await Service.start({ env: { AUTH_FAILURES_PER_MINUTE: '2' } });
    try {
      const m = await createMerchant(service);
      const wrong = `Basic ${Buffer.from(`${m.accessKey}:sk_guess`).toString('base64')}`;
      for (let i = 0; i < 2; i += 1)
        expect((await service.get('/v1/campaigns', { auth: wrong, headers: { 'x-forwarded-for': `203.0.113.${i}` } })).status).toBe(401);
      expect((await service.get('/v1/campaigns', { auth: wrong, headers: { 'x-forwarded-for': '203.0.113.99' } })).status).toBe(429);
    } finally {
      await service.stop();
    }
  });
});
