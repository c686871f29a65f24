/** The ES module build: `import { createReferral } from 'https://referrals.example/js/v1/referral.mjs'`. */
import { createReferral as create, type Referral, type ReferralOptions } from './referral';

export { ReferralError } from './referral';
export type { Attribution, BrowserWidget, Mounted, Referral, ReferralOptions, RenderOptions, TrackedPurchase } from './referral';

/** As in the script build; `apiBase` defaults to the service this module was loaded from. */
export function createReferral(options: Omit<ReferralOptions, 'apiBase'> & { apiBase?: string }): Referral {
  // The module is served at <base>/js/v1/referral.mjs.
  const self = import.meta.url;
  return create({ ...options, apiBase: options.apiBase ?? new URL('../../', self).href });
}
