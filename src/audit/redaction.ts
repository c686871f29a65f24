/**
 * What the audit trail must never show: credentials. Any property whose name ends in secret,
 * secret key, token, password, api key, private key or authorization (compared without case,
 * `_` or `-`: secretKey, secret_key, webhookSecret, access_token…) is replaced, at any depth,
 * and so is any string that looks like one of the service's own credentials (sk_…, mt_…, ct_…)
 * under whatever name it travels.
 */

export const REDACTED = '[redacted]';

const SECRET_NAME_ENDINGS = ['secret', 'secretkey', 'token', 'password', 'passwd', 'apikey', 'privatekey', 'authorization', 'signingkey'];

/** Secret keys and v2 tokens as the service issues them (platform/auth/tokens.ts, merchant-commands.ts). */
const CREDENTIAL_VALUE = /^(sk_[A-Za-z0-9]{16,}|(mt|ct)_[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})$/;

export function isSecretName(name: string): boolean {
  const normal = name.toLowerCase().replace(/[_-]/g, '');
  return SECRET_NAME_ENDINGS.some((ending) => normal.endsWith(ending));
}

/** A deep copy of `value` with every secret replaced by `[redacted]`. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 32) return REDACTED;
  if (typeof value === 'string') return CREDENTIAL_VALUE.test(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = isSecretName(key) ? REDACTED : redact(item, depth + 1);
    return out;
  }
  return value;
}
