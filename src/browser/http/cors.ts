/**
 * The CORS headers of the browser routes, in one place (no CORS library is installed). Only an
 * origin the merchant allows is ever echoed; every other route of the service sends none. No
 * credentials mode: the publishable key travels in a header, never in a cookie.
 */

/** The header a page sends its publishable key in. */
export const PUBLISHABLE_KEY_HEADER = 'x-publishable-key';
/** The header a page sends the signed-in customer's token in (a customer token its merchant's server made). */
export const CUSTOMER_TOKEN_HEADER = 'x-customer-token';
export const CORS_METHODS = 'GET, POST';
export const CORS_REQUEST_HEADERS = 'Content-Type, X-Publishable-Key, X-Customer-Token';
/** Response headers a page may read beyond the safelisted ones: a 429's wait, and the id to quote in a support request. */
export const CORS_EXPOSED_HEADERS = 'Retry-After, X-Request-Id';
/** How long a browser may reuse a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/** Every answer of a browser route varies by Origin: a cache must not hand one origin's answer to another. */
export const VARY_ORIGIN = { vary: 'Origin' };

/** The headers of an answer to a page on `origin`, an origin already found allowed. */
export function corsHeaders(origin: string): Record<string, string> {
  return { ...VARY_ORIGIN, 'access-control-allow-origin': origin, 'access-control-expose-headers': CORS_EXPOSED_HEADERS };
}

/** The headers of a preflight's answer for `origin`, an origin already found allowed. */
export function preflightHeaders(origin: string): Record<string, string> {
  return {
    ...VARY_ORIGIN,
    'access-control-allow-origin': origin,
    'access-control-allow-methods': CORS_METHODS,
    'access-control-allow-headers': CORS_REQUEST_HEADERS,
    'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
  };
}

/** The request's Origin, when it sent exactly one that could be an origin at all (`null` from a sandboxed frame is none). */
export function requestOrigin(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header === 'null' || header.length > 300) return undefined;
  return header;
}
