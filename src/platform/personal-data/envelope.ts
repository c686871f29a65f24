/**
 * Encrypted values as stored in events: `{"$pd": "<key id>[,<key id>…]:<base64url>"}` in place
 * of the value, and `"$pd": 1` at the top of the event's data to say it holds some. The
 * ciphertext is AES-256-GCM of the value's JSON under each subject's key in turn (a value of
 * several subjects is lost when any of their keys is); its nonce is derived from the key and the
 * input (HMAC-SHA256), so a value sealed twice under one key reads the same, and readers cache it.
 *
 * The values of one event under the same keys are sealed together (one opening for all of them):
 * each is `{"$pd": "<key ids>:<base64url>#<n>"}`, the same ciphertext of their JSON texts joined
 * by newlines (which JSON text never holds), and n the value's place among them.
 */
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { SubjectKey } from './key-store.js';

export const MARK = '$pd';
const NONCE = 12;
const DECIPHER = { createDecipheriv };

export interface Envelope {
  readonly [MARK]: string;
}

/** What an envelope's text is made of: base64url, the commas between key ids, the colon, a value's place. */
export const SEALED_TEXT = /^[A-Za-z0-9_,:#-]+$/;

/** An object whose one key is MARK, holding such a text (a client's object that only looks like one is left as it is). */
export function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== 'object' || value === null) return false;
  const text = (value as Record<string, unknown>)[MARK];
  if (typeof text !== 'string' || !SEALED_TEXT.test(text)) return false;
  for (const key in value) if (key !== MARK) return false;
  return true;
}

function sealBytes(key: Buffer, input: Buffer): Buffer {
  const nonce = createHmac('sha256', key).update(input).digest().subarray(0, NONCE);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(input), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), body]);
}

/** `values` sealed together under every key, the first innermost: an envelope for each. */
export function seal(values: readonly unknown[], keys: readonly SubjectKey[]): Envelope[] {
  const texts = values.map((value) => JSON.stringify(value));
  let bytes: Buffer = Buffer.from(texts.join('\n'), 'utf8');
  for (const { key } of keys) bytes = sealBytes(key, bytes);
  const sealed = `${keys.map((k) => k.id).join(',')}:${bytes.toString('base64url')}`;
  return texts.length === 1 ? [{ [MARK]: sealed }] : texts.map((_, n) => ({ [MARK]: `${sealed}#${n}` }));
}

/** The key ids an envelope needs. */
export function keyIdsOf(envelope: Envelope): string[] {
  const text = envelope[MARK];
  return text.slice(0, text.indexOf(':')).split(',');
}

/**
 * The value, or null when a key is missing (destroyed) or the envelope does not open. `opened`
 * keeps what each ciphertext opened to, for the other values sealed with it.
 */
export function open(envelope: Envelope, keyOf: (id: string) => Buffer | undefined, opened?: Map<string, string[]>): unknown {
  const json = openSealedText(envelope[MARK], keyOf, DECIPHER, opened);
  if (json === null) return null;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}

/**
 * The JSON text of the value an envelope's text seals, or null when a key is missing or it does
 * not open. `opened` keeps each ciphertext's values (JSON texts). Self-contained (the embedded store's reader
 * thread runs its source, thread-opener.ts): it uses only its arguments.
 */
export function openSealedText(text: string, keyOf: (id: string) => Buffer | undefined, node: typeof DECIPHER, opened?: Map<string, string[]>): string | null {
  const hash = text.indexOf('#');
  const sealed = hash < 0 ? text : text.slice(0, hash);
  let values = opened?.get(sealed);
  if (values === undefined) {
    const nonce = 12;
    const tag = 16;
    const colon = sealed.indexOf(':');
    const ids = sealed.slice(0, colon).split(',');
    let bytes: Buffer = Buffer.from(sealed.slice(colon + 1), 'base64url');
    try {
      for (let i = ids.length - 1; i >= 0; i -= 1) {
        const key = keyOf(ids[i]);
        if (!key) return null;
        const decipher = node.createDecipheriv('aes-256-gcm', key, bytes.subarray(0, nonce));
        decipher.setAuthTag(bytes.subarray(nonce, nonce + tag));
        bytes = Buffer.concat([decipher.update(bytes.subarray(nonce + tag)), decipher.final()]);
      }
    } catch {
      return null;
    }
    const plain = bytes.toString('utf8');
    values = hash < 0 ? [plain] : plain.split('\n');
    opened?.set(sealed, values);
  }
  return values[hash < 0 ? 0 : Number(text.slice(hash + 1))] ?? null;
}
