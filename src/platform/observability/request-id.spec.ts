import { isSaneRequestId, requestIdFor } from './request-id.js';

describe('request ids', () => {
  it('keeps a sane incoming X-Request-Id', () => {
    expect(requestIdFor({ headers: { 'x-request-id': 'abc-123_x.y:z' } })).toBe('abc-123_x.y:z');
    expect(requestIdFor({ headers: { 'x-request-id': 'a'.repeat(128) } })).toBe('a'.repeat(128));
  });

  it('replaces a missing, repeated, oversized or unsafe one with a UUID', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const value of [undefined, '', 'a'.repeat(129), 'has space', 'quote"', 'new\nline', '{"json":1}', ['a', 'b']]) {
      expect(requestIdFor({ headers: { 'x-request-id': value as string | undefined } })).toMatch(uuid);
    }
    expect(isSaneRequestId(42)).toBe(false);
  });
});
