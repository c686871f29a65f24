/** What other features may use of referral-links (docs/architecture.md): nothing else of it is imported from outside. */
export { ReferralCodes } from './commands/referral-codes.js';
export {
  AssociateCouponCommand,
  CreateReferralLinkCommand,
  EnsurePersonalLinkCommand,
  SetBlacklistedCommand,
  createLinkWith,
} from './commands/referral-link-commands.js';
export { referralLinkPersonalData } from './domain/personal-data.js';
export { CODE_ALPHABET, CODE_LENGTH, personalLinkClaimStream } from './domain/referral-link.js';
export type { LinkParameters } from './domain/referral-link.js';
export { ReferralCodeActivity } from './read-models/referral-code-activity.js';
export { ReferralLinkQueries } from './read-models/referral-link-queries.js';
export { referralLinksProjection } from './read-models/referral-links.projection.js';
export type { ReferralLinkDoc } from './read-models/referral-links.projection.js';
export { ReferralLinksModule } from './referral-links.module.js';
