/**
 * Encrypted values as stored in events: `{"$pd": "<key id>[,<key id>…]:<base64url>"}` in place
 * of the value, and `"$pd": 1` at the top of the event's data to say it holds some. The
 * ciphertext is AES-256-GCM of the value's JSON under each subject's key in turn (a value of
 * several subjects is lost when any of their keys is); its nonce is derived from the key and the
 * input (HMAC-SHA256), so a value sealed twice under one key reads the same, and readers cache it.
 */
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { SubjectKey } from './key-store.js';

export const MARK = '$pd';
const NONCE = 12;
const DECIPHER = { createDecipheriv };

export interface Envelope {
  readonly [MARK]: string;
}

export function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[MARK] === 'string';
}

function sealBytes(key: Buffer, input: Buffer): Buffer {
  const nonce = createHmac('sha256', key).update(input).digest().subarray(0, NONCE);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(input), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), body]);
}

/** `value` sealed under every key, the first innermost. */
export function seal(value: unknown, keys: readonly SubjectKey[]): Envelope {
  let bytes: Buffer = Buffer.from(JSON.stringify(value), 'utf8');
  for (const { key } of keys) bytes = sealBytes(key, bytes);
  return { [MARK]: `${keys.map((k) => k.id).join(',')}:${bytes.toString('base64url')}` };
}

/** The key ids an envelope needs. */
export function keyIdsOf(envelope: Envelope): string[] {
  const text = envelope[MARK];
  return text.slice(0, text.indexOf(':')).split(',');
}

/** The value, or null when a key is missing (destroyed) or the envelope does not open. */
export function open(envelope: Envelope, keyOf: (id: string) => Buffer | undefined): unknown {
  const json = openSealedText(envelope[MARK], keyOf, DECIPHER);
  if (json === null) return null;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}

/**
 * The JSON text an envelope's text (`<key id>[,<key id>…]:<base64url>`) seals, or null when a key
 * is missing or it does not open. Self-contained (the embedded store's reader thread runs its
 * source, thread-opener.ts): it uses only its arguments.
 */
export function openSealedText(text: string, keyOf: (id: string) => Buffer | undefined, node: typeof DECIPHER): string | null {
  const nonce = 12;
  const tag = 16;
  const colon = text.indexOf(':');
  const ids = text.slice(0, colon).split(',');
  let bytes: Buffer = Buffer.from(text.slice(colon + 1), 'base64url');
  try {
    for (let i = ids.length - 1; i >= 0; i -= 1) {
      const key = keyOf(ids[i]);
      if (!key) return null;
      const decipher = node.createDecipheriv('aes-256-gcm', key, bytes.subarray(0, nonce));
      decipher.setAuthTag(bytes.subarray(nonce, nonce + tag));
      bytes = Buffer.concat([decipher.update(bytes.subarray(nonce + tag)), decipher.final()]);
    }
    return bytes.toString('utf8');
  } catch {
    return null;
  }
}
