/**
 * Reward evaluation (spec §3): the widget's criteria and enabled fraud checks, as a pure
 * function of the facts. Every failing rule gives a machine-readable reason.
 */
import { isIP } from 'node:net';
import { FraudChecks, RewardCriteria } from '../../widgets/index.js';

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
  // Not a rule's outcome: an admin rejected the reward by hand (the admin view keeps who and why).
  'manually_rejected',
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
const PLUS_TAG_PROVIDERS = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'icloud.com',
  'me.com',
  'protonmail.com',
  'proton.me',
  'fastmail.com',
]);
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
  if (f.fraudChecks.sameIp && f.purchase.ipAddress !== null && f.advocate.ipAddress !== null && sameAddress(f.purchase.ipAddress, f.advocate.ipAddress))
    reasons.push('same_ip');
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

/** The columns successive tallies of one ledger share; only the newest tally appends to them. */
interface TallyColumns {
  /** Each reward id's first place in the columns. */
  readonly firstIndex: Map<number, number>;
  /** When each reward was counted (ms since the epoch; NaN for a time that does not parse). */
  readonly times: number[];
  /** Running totals of the amounts in ten-thousandths (moneyUnits): sums[i] is the total of rewards 0 … i. */
  readonly sums: bigint[];
  /** The first place whose time is earlier than the one before it, or not a time (Infinity: none). */
  firstDisorder: number;
}

/**
 * The rewards an advocate's ledger has counted, for the cap checks: whether a reward is counted
 * already, and how many and how much were counted after a time. Immutable to its users; the
 * tallies of one ledger share their columns (`with` appends in place when it extends the newest
 * tally, and copies what it keeps when it extends an older one), so counting a ledger's n-th
 * reward costs the same as its first: the ledger's state was a list copied whole at every
 * reward, and every cap check parsed the time of every reward the advocate ever had.
 */
export class RewardTally {
  private constructor(
    private readonly columns: TallyColumns,
    /** Rewards counted: the first `size` places of the columns. */
    readonly size: number,
  ) {}

  static empty(): RewardTally {
    return new RewardTally({ firstIndex: new Map(), times: [], sums: [], firstDisorder: Infinity }, 0);
  }

  has(rewardId: number): boolean {
    const at = this.columns.firstIndex.get(rewardId);
    return at !== undefined && at < this.size;
  }

  /** This tally and one more reward. */
  with(reward: CountedReward): RewardTally {
    const columns = this.columns.times.length === this.size ? this.columns : this.keptColumns();
    const i = this.size;
    const time = Date.parse(reward.at);
    if (!columns.firstIndex.has(reward.rewardId)) columns.firstIndex.set(reward.rewardId, i);
    columns.times.push(time);
    columns.sums.push((i > 0 ? columns.sums[i - 1] : 0n) + moneyUnits(reward.amount));
    if (columns.firstDisorder === Infinity && (Number.isNaN(time) || (i > 0 && time < columns.times[i - 1]))) columns.firstDisorder = i;
    return new RewardTally(columns, i + 1);
  }

  /** How many rewards were counted after `since` (ms; -Infinity: all), and their total in ten-thousandths (moneyUnits). */
  countedAfter(since: number): { count: number; units: bigint } {
    const { times } = this.columns;
    const size = this.size;
    if (size === 0) return { count: 0, units: 0n };
    if (this.columns.firstDisorder < size) {
      // Times out of order (a clock stepped back) or unreadable: every one is looked at.
      let count = 0;
      let sum = 0n;
      for (let i = 0; i < size; i += 1) {
        if (times[i] > since) {
          count += 1;
          sum += this.total(i, i + 1);
        }
      }
      return { count, units: sum };
    }
    // In order: the rewards after `since` are the last ones, from the first time past it.
    let lo = 0;
    let hi = size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (times[mid] > since) hi = mid;
      else lo = mid + 1;
    }
    return { count: size - lo, units: this.total(lo, size) };
  }

  /** The amounts of places `from` to `to` (exclusive), in ten-thousandths. */
  private total(from: number, to: number): bigint {
    const { sums } = this.columns;
    return sums[to - 1] - (from > 0 ? sums[from - 1] : 0n);
  }

  /** The columns of this tally alone, for a tally that extends an older one than the newest. */
  private keptColumns(): TallyColumns {
    const { firstIndex, times, sums, firstDisorder } = this.columns;
    const size = this.size;
    return {
      firstIndex: new Map([...firstIndex].filter(([, at]) => at < size)),
      times: times.slice(0, size),
      sums: sums.slice(0, size),
      firstDisorder: firstDisorder < size ? firstDisorder : Infinity,
    };
  }
}

/** Whether one more reward of `amount` at `now` stays within the advocate's caps. */
export function withinCap(rule: CapRule, counted: RewardTally, amount: number, now: Date): boolean {
  if (rule.maxCount === null && rule.maxAmount === null) return true;
  const since = rule.windowDays === null ? -Infinity : now.getTime() - rule.windowDays * 86_400_000;
  const inWindow = counted.countedAfter(since);
  if (rule.maxCount !== null && inWindow.count + 1 > rule.maxCount) return false;
  if (rule.maxAmount !== null && inWindow.units + moneyUnits(amount) > moneyUnits(rule.maxAmount)) return false;
  return true;
}

/**
 * Money as a whole number of ten-thousandths, the places the API takes (platform/http/validators.ts),
 * added up as bigints: in binary floating point 0.1 + 0.1 + 0.1 is 0.30000000000000004, which a
 * cap of 0.3 refused. The running totals cover an advocate's whole ledger, whose length nothing
 * bounds (hand approvals count past the caps, and a cap may be set after many rewards), so a
 * double would lose whole units past 2^53 however small each amount; a bigint never does.
 *
 * An amount the API takes (at most 4 places, at most MAX_REWARD_MONEY) times 10^4 is within
 * 10^13, and rounds to its exact count. Widgets stored before those rules may hold more places
 * (taken to the nearest ten-thousandth) or any size: a double past 2^52 is a whole number, and
 * is scaled as a bigint, so that 1e308 is 10^312 units and not Infinity.
 */
export function moneyUnits(amount: number): bigint {
  return Number.isInteger(amount) ? BigInt(amount) * 10_000n : BigInt(Math.round(amount * 10_000));
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
