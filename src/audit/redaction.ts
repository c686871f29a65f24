/**
 * What the audit trail must never show: credentials. Any property whose name ends in secret,
 * secret key, token, password, api key, private key or authorization (compared without case,
 * `_` or `-`: secretKey, secret_key, webhookSecret, access_token…) is replaced, at any depth,
 * and so is any string that looks like one of the service's own credentials (sk_…, mt_…, ct_…)
 * under whatever name it travels, and every value of a `headers` object (or `custom_headers`, any
 * name ending in headers: a merchant's custom headers authenticate the service to its endpoints
 * and may replace the signature, whatever their names).
 *
 * And, for a merchant not permitted to see them (spec §2.3 Share: email_recipients), the
 * addresses of a share's recipients (`hideRecipients`).
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
    for (const [key, item] of Object.entries(value)) {
      out[key] = isSecretName(key) ? REDACTED : isHeadersName(key) && isHeaderMap(item) ? redactValues(item) : redact(item, depth + 1);
    }
    return out;
  }
  return value;
}

/** `headers`, `custom_headers`, `customHeaders`…: a map of header names to values (the events' and the read models' names for them). */
function isHeadersName(key: string): boolean {
  return key.toLowerCase().endsWith('headers');
}

function isHeaderMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function redactValues(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}

/** Where events carry the addresses of a share's recipients (friends), by event type. */
const RECIPIENT_FIELDS: Readonly<
  Record<string, { lists?: readonly string[]; messages?: boolean; to?: boolean; payload?: boolean; quoting?: readonly string[] }>
> = {
  ShareCreated: { lists: ['emailRecipients'] },
  // The webhook payload a delivery sends: a share.created one has email_recipients when the merchant
  // could see them when it was made (the setting may have been turned off since).
  WebhookDeliveryScheduled: { payload: true },
  ShareEmailsSent: { lists: ['skippedOptedOut'], messages: true },
  ReminderEmailSent: { messages: true },
  // Every email the service sends goes to a share's recipients.
  EmailDelivered: { to: true },
  EmailSuppressed: { to: true },
  // A server's reply names the address it refused more often than not ("550 5.1.1 <bob@…>: user
  // unknown"), spelled its own way: the reply is replaced whole, its code (replyCode) stays.
  EmailFailed: { to: true, quoting: ['reply'] },
};

/**
 * `data` (already redacted: a copy) with the recipients' addresses replaced by `[redacted]`,
 * one for each, so counts stay visible, and any text that may quote one replaced whole; other
 * events unchanged.
 */
export function hideRecipients(type: string, data: unknown): unknown {
  const fields = RECIPIENT_FIELDS[type];
  if (!fields || data === null || typeof data !== 'object') return data;
  const out = { ...(data as Record<string, unknown>) };
  for (const list of fields.lists ?? []) if (Array.isArray(out[list])) out[list] = (out[list] as unknown[]).map(() => REDACTED);
  if (fields.messages && Array.isArray(out.messages)) {
    out.messages = (out.messages as unknown[]).map((m) => (m !== null && typeof m === 'object' ? { ...(m as object), to: REDACTED } : m));
  }
  if (fields.to && 'to' in out) out.to = REDACTED;
  for (const text of fields.quoting ?? []) if (typeof out[text] === 'string') out[text] = REDACTED;
  if (fields.payload) {
    const payload = out.payload as { data?: { email_recipients?: unknown } } | null | undefined;
    if (
      payload !== null &&
      typeof payload === 'object' &&
      payload.data !== null &&
      typeof payload.data === 'object' &&
      Array.isArray(payload.data.email_recipients)
    ) {
      out.payload = { ...payload, data: { ...payload.data, email_recipients: payload.data.email_recipients.map(() => REDACTED) } };
    }
  }
  return out;
}
