/** The URLs the service calls out to: webhook endpoints and client-API callbacks. */
import { invalid } from '../../platform/errors.js';

/** An absolute http(s) URL without credentials (they belong in a custom header). */
export function checkWebhookUrl(property: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(property, 'invalid', `${property} must be an absolute http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(property, 'invalid', `${property} must be an http or https URL`);
  if (url.username || url.password) {
    throw invalid(property, 'invalid', `${property} must not contain credentials; send them in a custom header instead`);
  }
  if (raw.length > 2000) throw invalid(property, 'invalid', `${property} must be at most 2000 characters`);
  return raw;
}
