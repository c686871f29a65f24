/**
 * How requests the service sends to a merchant are signed (spec §5.3; docs/webhooks.md):
 *
 * - `X-SERVICE-SIGNATURE` (or `X-SERVICE-SIGNATURE-V2` for custom reward validation):
 *   Base64(HMAC-SHA1(secret key, body bytes)), the spec's own scheme.
 * - Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (unix seconds of
 *   the attempt) and `webhook-signature: v1,<Base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>"))>`,
 *   where the key is the UTF-8 bytes of the merchant's secret key, i.e. the Standard Webhooks
 *   secret `whsec_` + Base64(secret key).
 *
 * Custom headers are added to every request; with `replaceSignature` they stand in for the
 * signature headers (X-SERVICE-SIGNATURE[-V2] and webhook-signature are then not sent).
 */
import { createHmac } from 'node:crypto';
import type { CustomHeaderSettings } from './integration-settings.js';

export type SignatureHeader = 'X-SERVICE-SIGNATURE' | 'X-SERVICE-SIGNATURE-V2';

export const USER_AGENT = 'referral-service-webhooks/1';

export function serviceSignature(secretKey: string, body: string | Buffer): string {
  return createHmac('sha1', secretKey).update(body).digest('base64');
}

export function standardWebhooksSignature(secretKey: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', Buffer.from(secretKey, 'utf8')).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The Standard Webhooks form of the merchant's secret key, for the official verification libraries. */
export function standardWebhooksSecret(secretKey: string): string {
  return `whsec_${Buffer.from(secretKey, 'utf8').toString('base64')}`;
}

export interface SignRequest {
  secretKey: string;
  /** Message id: the source event id for webhooks. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  body: string;
  signatureHeader: SignatureHeader;
  custom: CustomHeaderSettings;
}

/** Every header of one request, in the order they are sent. */
export function requestHeaders(r: SignRequest): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'webhook-id': r.id,
    'webhook-timestamp': String(r.timestamp),
  };
  if (!r.custom.replaceSignature) {
    headers[r.signatureHeader] = serviceSignature(r.secretKey, r.body);
    headers['webhook-signature'] = standardWebhooksSignature(r.secretKey, r.id, r.timestamp, r.body);
  }
  for (const [name, value] of Object.entries(r.custom.headers)) headers[name] = value;
  return headers;
}
