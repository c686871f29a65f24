/**
 * The embedded library's files (docs/embedding.md, "Files, caching and integrity"), as `npm run build`
 * made them: served to any page, cached with revalidation, and matching their published integrity.
 */
import { createHash } from 'node:crypto';
import { serviceForSuite } from '../support/service.js';

describe('the embedded library files', () => {
  const service = serviceForSuite({ sandbox: true });

  it('serves the script and module builds with their SRI hashes, to any origin, revalidated by ETag', async () => {
    const integrity = await service().get('/js/v1/integrity.json');
    expect(integrity.status).toBe(200);
    for (const file of ['referral.js', 'referral.mjs']) {
      const served = await service().get(`/js/v1/${file}`, { headers: { origin: 'https://any-shop.example' } });
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(served.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=86400');
      expect(served.headers.get('access-control-allow-origin')).toBe('*');
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      const body = Buffer.from(served.text, 'utf8');
      expect(integrity.body.files[file].integrity).toBe(`sha384-${createHash('sha384').update(body).digest('base64')}`);
      expect(integrity.body.files[file].gzip_bytes).toBeLessThanOrEqual(15 * 1024);
      const again = await service().get(`/js/v1/${file}`, { headers: { 'if-none-match': served.headers.get('etag')! } });
      expect([again.status, again.text]).toEqual([304, '']);
      // The sandbox serves the same file, so that it calls the sandbox.
      expect((await service().get(`/sandbox/js/v1/${file}`)).text).toBe(served.text);
    }
  });

  it('answers 404 with the error body for any other name, and 405 to a write', async () => {
    const missing = await service().get('/js/v1/referral.min.js');
    expect([missing.status, missing.body.errors]).toEqual([404, [expect.stringContaining('referral.js, referral.mjs and integrity.json')]]);
    expect((await service().get('/js/v1/..%2Fpackage.json')).status).toBe(404);
    expect((await service().post('/js/v1/referral.js', {})).status).toBe(405);
  });
});
