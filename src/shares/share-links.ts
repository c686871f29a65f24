/**
 * Trackable links inside emails, which are composed with no request at hand: PUBLIC_LINK_BASE,
 * else PUBLIC_BASE_URL + /l, else this service on localhost.
 */
import { Config } from '../platform/config.js';

export function emailLinkBase(config: Config): string {
  return config.publicLinkBase ?? `${config.publicBaseUrl ?? `http://localhost:${config.port}`}${config.mountPath ?? ''}/l`;
}
