/**
 * A v1 Customer's recent_shares and recent_referral_codes (spec §2.2), answered by the features
 * that own them: ports the composition root binds (src/ports.module.ts), so customers import neither.
 */
import { Links } from '../../platform/http/links.js';
import { CustomerDoc } from './customers.projection.js';

/** The customer's latest items of one kind, as the v1 Customer embeds them. */
export interface RecentActivity {
  recent(customer: CustomerDoc, links: Links): Promise<unknown[]>;
}

/** The customer's latest shares (the shares feature answers). */
export const RECENT_SHARES = Symbol('RECENT_SHARES');
/** The customer's latest referral codes (the referral-links feature answers). */
export const RECENT_REFERRAL_CODES = Symbol('RECENT_REFERRAL_CODES');
