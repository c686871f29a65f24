/**
 * The origins a merchant's pages are served from (docs/embedding.md): exact `scheme://host[:port]`,
 * http or https, no path, query, fragment, user or wildcard. The browser sends its Origin header in
 * this serialised form, so an origin is kept as the browser will send it and compared as a string.
 */

/** Most origins one merchant may allow. */
export const MAX_ALLOWED_ORIGINS = 50;
const MAX_ORIGIN_LENGTH = 300;

/** Why `value` is not an origin this service takes (the end of a sentence), or null. */
export function originFault(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (value.length > MAX_ORIGIN_LENGTH) return `must be at most ${MAX_ORIGIN_LENGTH} characters`;
  if (value.includes('*')) return 'must be an exact origin: wildcards are not allowed';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an origin: scheme://host[:port], e.g. https://shop.example';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https origin';
  if (url.username || url.password) return 'must be an origin without a user part';
  // The browser's serialisation: lower-case scheme and host, no default port, no trailing slash.
  if (url.origin !== value) {
    return url.origin !== 'null' && `${url.origin}/` !== value && url.pathname === '/' && !url.search && !url.hash
      ? `must be written as the browser sends it: ${url.origin}`
      : 'must be an origin only: scheme://host[:port], with no path, query or fragment';
  }
  return null;
}
