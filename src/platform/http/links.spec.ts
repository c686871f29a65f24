import type { FastifyRequest } from 'fastify';
import { Links } from './links.js';

function request(url: string) {
  let hostReads = 0;
  const req = {
    url,
    protocol: 'https',
    get host() {
      hostReads += 1;
      return 'api.example';
    },
  } as unknown as FastifyRequest;
  return { req, hostReads: () => hostReads };
}

describe('Links', () => {
  it('encodes each path segment, and leaves ids as they are', () => {
    const links = new Links(request('/v2/purchases').req, undefined);
    expect(links.v2('widgets', 12, 'shares')).toBe('https://api.example/v2/widgets/12/shares');
    expect(links.v1('referral_links', 'a b/c?d')).toBe('https://api.example/v1/referral_links/a%20b%2Fc%3Fd');
  });

  it("keeps the sandbox mount and works out the request's base once for all its links", () => {
    const { req, hostReads } = request('/sandbox/v2/purchases?limit=20');
    const links = new Links(req, undefined);
    const many = Array.from({ length: 20 }, (_, i) => links.v2('purchases', i + 1));
    expect(many[19]).toBe('https://api.example/sandbox/v2/purchases/20');
    expect(hostReads()).toBe(1);
  });

  it('uses the configured base and link base when set', () => {
    const links = new Links(request('/v2/shares').req, 'https://public.example', 'https://go.example');
    expect(links.v2('shares', 7)).toBe('https://public.example/v2/shares/7');
    expect(links.trackable('AB12')).toBe('https://go.example/AB12');
  });
});
