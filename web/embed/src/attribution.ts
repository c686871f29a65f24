/**
 * Attribution: the referral code a visitor arrived with, kept in a first-party cookie on the
 * shop's own domain. It holds the code, when the visitor landed and for how many days it counts:
 * no personal data. The last link followed wins.
 */

export const COOKIE = 'referral_attribution';
/** The query parameter the service's trackable links (/l/{code}) add to the destination. */
export const CODE_PARAMETER = 'referral_code';
export const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

export interface Attribution {
  referral_code: string;
  landed_at: string;
  expires_at: string;
}

/** A code as the service makes them (letters, digits, `-` and `_`): anything else is not kept. */
const CODE_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

/** The code in a landing URL's query, when it has one of the right shape. */
export function landingCode(search: string): string | undefined {
  const code = new URLSearchParams(search).get(CODE_PARAMETER)?.trim();
  return code && CODE_SHAPE.test(code) ? code : undefined;
}

export function readAttribution(cookies: string, now = Date.now()): Attribution | null {
  for (const part of cookies.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name !== COOKIE || !value) continue;
    const [code, landed, days] = decodeURIComponent(value).split('|');
    const landedMs = Number(landed) * 1000;
    const expiresMs = landedMs + Number(days) * DAY_MS;
    if (!CODE_SHAPE.test(code) || !Number.isFinite(expiresMs) || expiresMs <= now) return null;
    return { referral_code: code, landed_at: new Date(landedMs).toISOString(), expires_at: new Date(expiresMs).toISOString() };
  }
  return null;
}

/** The Set-Cookie string for a visitor who landed with `code` now, kept for `days`. */
export function attributionCookie(code: string, days: number, options: { secure: boolean; domain?: string }, now = Date.now()): string {
  const value = encodeURIComponent(`${code}|${Math.floor(now / 1000)}|${days}`);
  const parts = [`${COOKIE}=${value}`, `Max-Age=${Math.round(days * 86_400)}`, 'Path=/', 'SameSite=Lax'];
  if (options.domain) parts.push(`Domain=${options.domain}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
