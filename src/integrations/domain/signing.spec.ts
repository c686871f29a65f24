import { createHmac } from 'node:crypto';
import { requestHeaders, serviceSignature, standardWebhooksSecret, standardWebhooksSignature } from './signing.js';

const secret = 'sk_test_0123456789';
const body = '{"id":"e1","type":"share.created","created_at":"2026-05-01T08:00:00.000Z","data":{}}';

describe('signing', () => {
  it('signs the body with HMAC-SHA1 under the secret key, Base64 (spec §5.3)', () => {
    expect(serviceSignature(secret, body)).toBe(createHmac('sha1', secret).update(body).digest('base64'));
  });

  it('signs id.timestamp.body with HMAC-SHA256 under the whsec_ form of the secret key (Standard Webhooks)', () => {
    const key = Buffer.from(standardWebhooksSecret(secret).slice('whsec_'.length), 'base64');
    expect(key.toString('utf8')).toBe(secret);
    const expected = createHmac('sha256', key).update(`e1.1777622400.${body}`).digest('base64');
    expect(standardWebhooksSignature(secret, 'e1', 1777622400, body)).toBe(`v1,${expected}`);
  });

  it('adds custom headers, and leaves out the signatures when they replace them', () => {
    const base = { secretKey: secret, id: 'e1', timestamp: 1777622400, body, signatureHeader: 'X-SERVICE-SIGNATURE-V2' as const };
    const signed = requestHeaders({ ...base, custom: { headers: { 'X-Vendor': 'v' }, replaceSignature: false } });
    expect(Object.keys(signed)).toEqual([
      'Content-Type',
      'User-Agent',
      'webhook-id',
      'webhook-timestamp',
      'X-SERVICE-SIGNATURE-V2',
      'webhook-signature',
      'X-Vendor',
    ]);
    const replaced = requestHeaders({ ...base, custom: { headers: { Authorization: 'Bearer t' }, replaceSignature: true } });
    expect(replaced).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': expect.any(String),
      'webhook-id': 'e1',
      'webhook-timestamp': '1777622400',
      Authorization: 'Bearer t',
    });
  });
});
