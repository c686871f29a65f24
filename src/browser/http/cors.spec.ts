import { corsHeaders, preflightHeaders, requestOrigin } from './cors.js';

describe('browser CORS headers', () => {
  it('echo the allowed origin, vary by Origin and expose Retry-After, without credentials', () => {
    expect(corsHeaders('https://shop.example')).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': 'https://shop.example',
      'access-control-expose-headers': 'Retry-After, X-Request-Id',
    });
  });

  it('answer a preflight with the methods, the key header and how long to keep the answer', () => {
    const headers = preflightHeaders('http://localhost:8080');
    expect(headers).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': 'http://localhost:8080',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'Content-Type, X-Publishable-Key, X-Customer-Token',
      'access-control-max-age': '600',
    });
    expect(Object.keys(headers)).not.toContain('access-control-allow-credentials');
  });

  it('take no opaque origin, no repeated header and no over-long value as an origin', () => {
    expect([
      requestOrigin('https://shop.example'),
      requestOrigin('null'),
      requestOrigin(['https://a.example', 'https://b.example']),
      requestOrigin(`https://${'a'.repeat(300)}.example`),
      requestOrigin(undefined),
    ]).toEqual(['https://shop.example', undefined, undefined, undefined, undefined]);
  });
});
