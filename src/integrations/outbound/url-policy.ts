/**
 * The configuration-time check of a merchant URL (webhook endpoint, client API): http(s), and
 * unless WEBHOOK_ALLOW_PRIVATE_URLS, a host that resolves, and only to public addresses. The
 * same check runs again at every request (outbound-http.ts), because DNS answers change.
 */
import { Inject, Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { CONFIG, type Config } from '../../platform/config.js';
import { invalid } from '../../platform/errors.js';
import { bareHostname, isDisallowedAddress } from '../domain/address-policy.js';
import { checkWebhookUrl } from '../domain/outbound-url.js';

const LOOKUP_TIMEOUT_MS = 5000;

@Injectable()
export class UrlPolicy {
  constructor(@Inject(CONFIG) private readonly config: Config) {}

  /** Throws a 400 report on `property` when the URL may not be used. */
  async check(property: string, raw: string): Promise<void> {
    checkWebhookUrl(property, raw);
    if (this.config.webhookAllowPrivateUrls) return;
    const host = bareHostname(new URL(raw));
    const refuse = (why: string) =>
      invalid(
        property,
        'invalid',
        `${property} ${why}; webhooks and callbacks go to public addresses only (for development, start the service with WEBHOOK_ALLOW_PRIVATE_URLS=true)`,
      );
    if (isIP(host)) {
      if (isDisallowedAddress(host)) throw refuse(`points to ${host}, a private, loopback or link-local address`);
      return;
    }
    let addresses: { address: string }[];
    try {
      let timer: NodeJS.Timeout | undefined;
      addresses = await Promise.race([
        lookup(host, { all: true, verbatim: true }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    } catch {
      throw refuse(`has a host that does not resolve (${host})`);
    }
    const bad = addresses.find((a) => isDisallowedAddress(a.address));
    if (bad || addresses.length === 0) throw refuse(`has a host that resolves to ${bad?.address ?? 'nothing'}, a private, loopback or link-local address`);
  }
}
