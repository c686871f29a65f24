/**
 * Reward evaluation (spec §3): the widget's criteria and enabled fraud checks, as a pure
 * function of the facts. Every failing rule gives a machine-readable reason.
 */
import { isIP } from 'node:net';
import { FraudChecks, RewardCriteria } from '../../widgets/domain/widget.js';

export const REJECTION_REASONS = [
  'not_new_customer',
  'below_minimum_purchase_amount',
  'self_referral',
  'same_email',
  'similar_email',
  'same_ip',
  'advocate_reward_cap_reached',
  'validation_callback_rejected',
  'validation_callback_failed',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export interface EvaluationFacts {
  criteria: RewardCriteria;
  fraudChecks: FraudChecks;
  purchase: { paymentAmount: number | null; newCustomer: string | null; ipAddress: string | null };
  friend: { customerId: number | null; emails: string[] };
  /** The advocate's addresses: the link's reward address and the customer's current one (they may differ, or one be missing). */
  advocate: { customerId: number | null; emails: string[]; ipAddress: string | null };
}

/** Providers that deliver `name+tag@` to `name@`; Gmail also ignores dots in the local part. */
const PLUS_TAG_PROVIDERS = new Set(['gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'live.com', 'icloud.com', 'me.com', 'protonmail.com', 'proton.me', 'fastmail.com']);
const DOTLESS_PROVIDERS = new Set(['gmail.com', 'googlemail.com']);

export function normaliseForComparison(email: string): string {
  const lower = email.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 1) return lower;
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  if (domain === 'googlemail.com') domain = 'gmail.com';
  if (PLUS_TAG_PROVIDERS.has(domain)) local = local.split('+', 1)[0];
  if (DOTLESS_PROVIDERS.has(domain)) local = local.replace(/\./g, '');
  return `${local}@${domain}`;
}

export function rejectionReasons(f: EvaluationFacts): RejectionReason[] {
  const reasons: RejectionReason[] = [];
  if (f.criteria.newCustomersOnly && f.purchase.newCustomer !== 'yes') reasons.push('not_new_customer');
  const minimum = f.criteria.minimumPurchaseAmount;
  if (minimum !== null && (f.purchase.paymentAmount === null || f.purchase.paymentAmount < minimum)) reasons.push('below_minimum_purchase_amount');
  if (f.fraudChecks.sameCustomer && f.friend.customerId !== null && f.friend.customerId === f.advocate.customerId) reasons.push('self_referral');
  const pairs = f.friend.emails.flatMap((friend) => f.advocate.emails.map((advocate) => [friend, advocate] as const));
  const exact = pairs.some(([friend, advocate]) => friend.trim().toLowerCase() === advocate.trim().toLowerCase());
  if (f.fraudChecks.sameEmail && exact) reasons.push('same_email');
  const similar = pairs.some(([friend, advocate]) => normaliseForComparison(friend) === normaliseForComparison(advocate));
  if (f.fraudChecks.similarEmail && similar && !(f.fraudChecks.sameEmail && exact)) reasons.push('similar_email');
  if (f.fraudChecks.sameIp && f.purchase.ipAddress !== null && f.advocate.ipAddress !== null && sameAddress(f.purchase.ipAddress, f.advocate.ipAddress)) reasons.push('same_ip');
  return reasons;
}

export interface CapRule {
  maxCount: number | null;
  maxAmount: number | null;
  windowDays: number | null;
}

export interface CountedReward {
  rewardId: number;
  amount: number;
  at: string;
}

/** Whether one more reward of `amount` at `now` stays within the advocate's caps. */
export function withinCap(rule: CapRule, counted: CountedReward[], amount: number, now: Date): boolean {
  const since = rule.windowDays === null ? -Infinity : now.getTime() - rule.windowDays * 86_400_000;
  const inWindow = counted.filter((r) => Date.parse(r.at) > since);
  if (rule.maxCount !== null && inWindow.length + 1 > rule.maxCount) return false;
  if (rule.maxAmount !== null && inWindow.reduce((sum, r) => sum + micros(r.amount), 0) + micros(amount) > micros(rule.maxAmount)) return false;
  return true;
}

/**
 * Money compared in millionths, as integers: in binary floating point 0.1 + 0.1 + 0.1 is
 * 0.30000000000000004, which a cap of 0.3 refused. Exact for sums below 9 × 10^9.
 */
function micros(amount: number): number {
  return Math.round(amount * 1_000_000);
}

/**
 * One address in one spelling: IPv6 compressed and lower-cased (`2001:DB8:0::1` is `2001:db8::1`),
 * an IPv4-mapped IPv6 address as its IPv4 address (`::ffff:127.0.0.1` is `127.0.0.1`). Text
 * that is no IP address is kept as it is.
 */
export function canonicalIp(text: string): string {
  const version = isIP(text);
  if (version !== 6) return text;
  let host: string;
  try {
    host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text.toLowerCase(); // a zone id (fe80::1%eth0), which URLs cannot carry
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!mapped) return host;
  const [hi, lo] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

function sameAddress(a: string, b: string): boolean {
  return a === b || canonicalIp(a) === canonicalIp(b);
}
