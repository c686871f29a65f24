/**
 * The message policy of customer-token shares (a merchant setting): `off` drops the advocate's
 * text, `plain` takes text without links or domain names, `free` takes anything. A customer token
 * is an end user's device: without it, it could mail any address phishing text under the merchant's name.
 */
import type { ShareMessagePolicy } from '../../merchants/index.js';

// A scheme (https:, mailto:, data:…), `www.`, or a dotted name ending in a letter label of 2+ (evil.example, a.b.co).
const SCHEME = /\b[a-z][a-z0-9+.-]*:\/\//i;
const SCHEME_WORD = /\b(?:mailto|data|javascript|file|tel|sms):/i;
const DOMAIN = /(?:^|[^\p{L}\p{N}_-])(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,62}[\p{L}\p{N}])?[.。．｡])+\p{L}{2,63}(?![\p{L}\p{N}])/iu;

const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}\b/;

/** Whether the text holds something a mail client or a reader could follow: a URL, a scheme, a domain name, an IPv4 address. */
export function holdsLink(text: string): boolean {
  return SCHEME.test(text) || SCHEME_WORD.test(text) || DOMAIN.test(text) || IPV4.test(text);
}

/** The message a customer token's share emails may carry under the policy (null: none). */
export function permittedMessage(policy: ShareMessagePolicy, message: string | null): string | null {
  if (message === null || policy === 'off') return null;
  if (policy === 'plain' && holdsLink(message)) return null;
  return message;
}
