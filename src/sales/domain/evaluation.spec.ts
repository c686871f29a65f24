import fc from 'fast-check';
import { DEFAULT_CRITERIA, DEFAULT_FRAUD_CHECKS } from '../../widgets/domain/widget.js';
import { CapRule, CountedReward, EvaluationFacts, normaliseForComparison, rejectionReasons, RewardTally, withinCap } from './evaluation.js';

const tally = (rewards: CountedReward[]) => rewards.reduce((t, r) => t.with(r), RewardTally.empty());

/** The cap check as it was first written, over the plain list: what the tally must answer. */
function withinCapByList(rule: CapRule, counted: CountedReward[], amount: number, now: Date): boolean {
  const since = rule.windowDays === null ? -Infinity : now.getTime() - rule.windowDays * 86_400_000;
  const inWindow = counted.filter((r) => Date.parse(r.at) > since);
  const units = (a: number) => BigInt(Math.round(a * 10_000));
  if (rule.maxCount !== null && inWindow.length + 1 > rule.maxCount) return false;
  if (rule.maxAmount !== null && inWindow.reduce((sum, r) => sum + units(r.amount), 0n) + units(amount) > units(rule.maxAmount)) return false;
  return true;
}

const base: EvaluationFacts = {
  criteria: DEFAULT_CRITERIA,
  fraudChecks: { sameCustomer: false, sameEmail: false, similarEmail: false, sameIp: false },
  purchase: { paymentAmount: 100, newCustomer: 'yes', ipAddress: '198.51.100.1' },
  friend: { customerId: 2, emails: ['friend@example.com'] },
  advocate: { customerId: 1, emails: ['ann@example.com'], ipAddress: '203.0.113.1' },
};

describe('reward evaluation', () => {
  it('approves when nothing is configured', () => {
    expect(rejectionReasons(base)).toEqual([]);
  });

  it('new customers only: the purchase must say yes', () => {
    const criteria = { ...DEFAULT_CRITERIA, newCustomersOnly: true };
    expect(rejectionReasons({ ...base, criteria })).toEqual([]);
    for (const newCustomer of ['no', 'unknown', null]) {
      expect(rejectionReasons({ ...base, criteria, purchase: { ...base.purchase, newCustomer } })).toEqual(['not_new_customer']);
    }
  });

  it('minimum purchase amount, with an unknown amount failing it', () => {
    const criteria = { ...DEFAULT_CRITERIA, minimumPurchaseAmount: 100 };
    expect(rejectionReasons({ ...base, criteria })).toEqual([]);
    expect(rejectionReasons({ ...base, criteria, purchase: { ...base.purchase, paymentAmount: 99.99 } })).toEqual(['below_minimum_purchase_amount']);
    expect(rejectionReasons({ ...base, criteria, purchase: { ...base.purchase, paymentAmount: null } })).toEqual(['below_minimum_purchase_amount']);
  });

  it('self-referral by customer id', () => {
    const fraudChecks = { ...base.fraudChecks, sameCustomer: true };
    expect(rejectionReasons({ ...base, fraudChecks, friend: { ...base.friend, customerId: 1 } })).toEqual(['self_referral']);
    expect(rejectionReasons({ ...base, fraudChecks })).toEqual([]);
    expect(rejectionReasons({ ...base, friend: { ...base.friend, customerId: 1 } })).toEqual([]);
  });

  it('same email, case-insensitively', () => {
    const fraudChecks = { ...base.fraudChecks, sameEmail: true };
    expect(rejectionReasons({ ...base, fraudChecks, friend: { ...base.friend, emails: ['ANN@example.com'] } })).toEqual(['same_email']);
  });

  it('same email is the same address ignoring case and surrounding spaces, nothing more; similar email also drops +tags and Gmail dots (as documented)', () => {
    const check = (fraudChecks: Partial<EvaluationFacts['fraudChecks']>, friend: string, advocate: string) =>
      rejectionReasons({
        ...base,
        fraudChecks: { ...base.fraudChecks, ...fraudChecks },
        friend: { ...base.friend, emails: [friend] },
        advocate: { ...base.advocate, emails: [advocate] },
      });
    expect(check({ sameEmail: true }, ' Ann@Example.COM ', 'ann@example.com')).toEqual(['same_email']);
    expect(check({ sameEmail: true }, 'ann+x@gmail.com', 'ann@gmail.com')).toEqual([]);
    expect(check({ sameEmail: true }, 'a.nn@gmail.com', 'ann@gmail.com')).toEqual([]);
    expect(check({ similarEmail: true }, 'a.nn+deals@googlemail.com', ' ANN@gmail.com')).toEqual(['similar_email']);
    expect(check({ similarEmail: true }, 'ann+x@icloud.com', 'ann@icloud.com')).toEqual(['similar_email']);
    // A +tag elsewhere, and dots outside Gmail, are other addresses.
    expect(check({ similarEmail: true }, 'ann+x@example.com', 'ann@example.com')).toEqual([]);
    expect(check({ similarEmail: true }, 'a.nn@outlook.com', 'ann@outlook.com')).toEqual([]);
    // similar_email alone catches the same address too.
    expect(check({ similarEmail: true }, 'Ann@example.com', 'ann@example.com')).toEqual(['similar_email']);
  });

  it("same email against any of the advocate's addresses: the link's and the customer's current one", () => {
    const fraudChecks = { ...base.fraudChecks, sameEmail: true };
    const friend = { ...base.friend, emails: ['later@example.com'] };
    expect(rejectionReasons({ ...base, fraudChecks, friend, advocate: { ...base.advocate, emails: ['ann@example.com', 'later@example.com'] } })).toEqual([
      'same_email',
    ]);
    expect(rejectionReasons({ ...base, fraudChecks, friend, advocate: { ...base.advocate, emails: [] } })).toEqual([]);
  });

  it('similar email after normalisation of common providers', () => {
    const fraudChecks = { ...base.fraudChecks, similarEmail: true };
    const advocate = { ...base.advocate, emails: ['ann.lee@gmail.com'] };
    expect(rejectionReasons({ ...base, fraudChecks, advocate, friend: { ...base.friend, emails: ['AnnLee+deals@googlemail.com'] } })).toEqual([
      'similar_email',
    ]);
    expect(rejectionReasons({ ...base, fraudChecks, advocate, friend: { ...base.friend, emails: ['ann.lee2@gmail.com'] } })).toEqual([]);
    // Dots matter outside Gmail.
    expect(normaliseForComparison('a.b@example.com')).toBe('a.b@example.com');
    expect(normaliseForComparison('a.b+x@outlook.com')).toBe('a.b@outlook.com');
    // With same_email also on, an exact match reports same_email only.
    expect(rejectionReasons({ ...base, fraudChecks: { ...fraudChecks, sameEmail: true }, friend: { ...base.friend, emails: ['ann@example.com'] } })).toEqual([
      'same_email',
    ]);
  });

  it('same IP as the share or link creation', () => {
    const fraudChecks = { ...base.fraudChecks, sameIp: true };
    expect(rejectionReasons({ ...base, fraudChecks, purchase: { ...base.purchase, ipAddress: '203.0.113.1' } })).toEqual(['same_ip']);
    expect(
      rejectionReasons({ ...base, fraudChecks, advocate: { ...base.advocate, ipAddress: null }, purchase: { ...base.purchase, ipAddress: null } }),
    ).toEqual([]);
  });

  it.each([
    ['2001:db8::1', '2001:DB8::1'],
    ['2001:db8::1', '2001:db8:0:0::1'],
    ['2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001'],
    ['127.0.0.1', '::ffff:127.0.0.1'],
    ['::FFFF:7F00:1', '127.0.0.1'],
    ['fe80::1%eth0', 'FE80::1%ETH0'],
  ])('same IP however it is written: %s and %s', (linkIp, purchaseIp) => {
    const fraudChecks = { ...base.fraudChecks, sameIp: true };
    expect(
      rejectionReasons({ ...base, fraudChecks, advocate: { ...base.advocate, ipAddress: linkIp }, purchase: { ...base.purchase, ipAddress: purchaseIp } }),
    ).toEqual(['same_ip']);
  });

  it('different IPs are not the same IP', () => {
    const fraudChecks = { ...base.fraudChecks, sameIp: true };
    for (const [a, b] of [
      ['2001:db8::1', '2001:db8::2'],
      ['10.0.0.1', '::ffff:10.0.0.2'],
      ['127.0.0.1', '::127.0.0.1'],
    ]) {
      expect(rejectionReasons({ ...base, fraudChecks, advocate: { ...base.advocate, ipAddress: a }, purchase: { ...base.purchase, ipAddress: b } })).toEqual(
        [],
      );
    }
  });

  it('reports every failing rule', () => {
    const all = { ...DEFAULT_FRAUD_CHECKS, sameIp: true };
    const reasons = rejectionReasons({
      ...base,
      criteria: { ...DEFAULT_CRITERIA, newCustomersOnly: true, minimumPurchaseAmount: 500 },
      fraudChecks: all,
      purchase: { paymentAmount: 10, newCustomer: 'no', ipAddress: '203.0.113.1' },
      friend: { customerId: 1, emails: ['ann@example.com'] },
    });
    expect(reasons).toEqual(['not_new_customer', 'below_minimum_purchase_amount', 'self_referral', 'same_email', 'same_ip']);
  });

  it('caps by count and amount, over a lifetime or a rolling window', () => {
    const now = new Date('2026-07-10T00:00:00.000Z');
    const old = { rewardId: 1, amount: 10, at: '2026-06-01T00:00:00.000Z' };
    const recent = { rewardId: 2, amount: 10, at: '2026-07-09T00:00:00.000Z' };
    expect(withinCap({ maxCount: 2, maxAmount: null, windowDays: null }, tally([old, recent]), 10, now)).toBe(false);
    expect(withinCap({ maxCount: 2, maxAmount: null, windowDays: 30 }, tally([old, recent]), 10, now)).toBe(true);
    expect(withinCap({ maxCount: null, maxAmount: 25, windowDays: null }, tally([old]), 10, now)).toBe(true);
    expect(withinCap({ maxCount: null, maxAmount: 25, windowDays: null }, tally([old, recent]), 10, now)).toBe(false);
  });

  it('adds amounts exactly: three rewards of 0.1 fit a cap of 0.3, a fourth does not', () => {
    const now = new Date('2026-07-10T00:00:00.000Z');
    const dime = (rewardId: number) => ({ rewardId, amount: 0.1, at: '2026-07-01T00:00:00.000Z' });
    const rule = { maxCount: null, maxAmount: 0.3, windowDays: null };
    expect(withinCap(rule, tally([dime(1), dime(2)]), 0.1, now)).toBe(true);
    expect(withinCap(rule, tally([dime(1), dime(2), dime(3)]), 0.1, now)).toBe(false);
    expect(withinCap({ ...rule, maxAmount: 0.7 }, tally([dime(1), dime(2), dime(3), dime(4), dime(5), dime(6)]), 0.1, now)).toBe(true);
  });

  it('adds the smallest and largest amounts the API takes exactly: 0.0001 and 1,000,000,000', () => {
    const now = new Date('2026-07-10T00:00:00.000Z');
    const at = '2026-07-01T00:00:00.000Z';
    const ofEach = (amount: number, n: number, from = 1) => tally(Array.from({ length: n }, (_, i) => ({ rewardId: from + i, amount, at })));
    expect(withinCap({ maxCount: null, maxAmount: 0.0003, windowDays: null }, ofEach(0.0001, 2), 0.0001, now)).toBe(true);
    expect(withinCap({ maxCount: null, maxAmount: 0.0003, windowDays: null }, ofEach(0.0001, 3), 0.0001, now)).toBe(false);
    expect(withinCap({ maxCount: null, maxAmount: 1_000_000_000, windowDays: null }, ofEach(1_000_000_000, 0), 1_000_000_000, now)).toBe(true);
    expect(withinCap({ maxCount: null, maxAmount: 1_000_000_000, windowDays: null }, ofEach(1_000_000_000, 1), 0.0001, now)).toBe(false);
    expect(withinCap({ maxCount: null, maxAmount: 999_999_999.9999, windowDays: null }, ofEach(999_999_999.9998, 1), 0.0001, now)).toBe(true);
  });

  it('counts a window exactly however much the whole ledger holds (its running totals are not rounded)', () => {
    const now = new Date('2026-07-10T00:00:00.000Z');
    // 600 rewards of 1,000,000,000 long ago (hand approvals count past caps), then two of 0.0001 this week:
    // in millionths the ledger's running total passed 2^59, where doubles are 128 apart, and the week's
    // two rewards read as 0.000256.
    const old = Array.from({ length: 600 }, (_, i) => ({ rewardId: i + 1, amount: 1_000_000_000, at: '2025-01-01T00:00:00.000Z' }));
    const recent = [601, 602].map((rewardId) => ({ rewardId, amount: 0.0001, at: '2026-07-09T00:00:00.000Z' }));
    const rule = { maxCount: null, maxAmount: 0.0003, windowDays: 7 };
    expect(withinCap(rule, tally([...old, ...recent]), 0.0001, now)).toBe(true);
    expect(withinCap(rule, tally([...old, ...recent]), 0.0002, now)).toBe(false);
  });

  it('evaluates widgets stored before amounts were money: more places to the nearest ten-thousandth, and any size', () => {
    const now = new Date('2026-07-10T00:00:00.000Z');
    const at = '2026-07-01T00:00:00.000Z';
    // 1e308 in millionths was Infinity, and Infinity + Infinity is not over Infinity: every reward fitted.
    const huge = { maxCount: null, maxAmount: 1e308, windowDays: null };
    expect(withinCap(huge, tally([]), 1e308, now)).toBe(true);
    expect(withinCap(huge, tally([{ rewardId: 1, amount: 1e308, at }]), 1e308, now)).toBe(false);
    // 0.00006 and 0.00014 are 0.0001 each: two fit a cap of 0.0002, a third does not.
    const fine = { maxCount: null, maxAmount: 0.0002, windowDays: null };
    expect(withinCap(fine, tally([{ rewardId: 1, amount: 0.00006, at }]), 0.00014, now)).toBe(true);
    expect(
      withinCap(
        fine,
        tally([
          { rewardId: 1, amount: 0.00006, at },
          { rewardId: 2, amount: 0.00014, at },
        ]),
        0.00006,
        now,
      ),
    ).toBe(false);
  });
  it('answers every cap check as the plain list does: any order of times, unreadable ones, windows, amounts', () => {
    const day = 86_400_000;
    const start = Date.UTC(2026, 5, 1);
    const reward = fc.record({
      rewardId: fc.integer({ min: 1, max: 20 }),
      amount: fc.constantFrom(0.1, 0.2, 1, 2.5, 10),
      // Mostly in order, sometimes earlier than the one before (a clock stepped back), rarely unreadable.
      at: fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: 0, max: 60 }).map((d) => new Date(start + d * day).toISOString()) },
        { weight: 1, arbitrary: fc.constant('not a time') },
      ),
    });
    const rule = fc.record({
      maxCount: fc.option(fc.integer({ min: 0, max: 12 })),
      maxAmount: fc.option(fc.constantFrom(0.3, 1, 5, 20, 60)),
      windowDays: fc.option(fc.integer({ min: 0, max: 70 })),
    });
    fc.assert(
      fc.property(
        fc.array(reward, { maxLength: 25 }),
        fc.boolean(),
        rule,
        fc.constantFrom(0.1, 1, 10),
        fc.integer({ min: 0, max: 70 }),
        (rewards, sorted, r, amount, nowDay) => {
          const counted = sorted ? [...rewards].sort((a, b) => a.at.localeCompare(b.at)) : rewards;
          const now = new Date(start + nowDay * day);
          expect(withinCap(r, tally(counted), amount, now)).toBe(withinCapByList(r, counted, amount, now));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('tallies of one ledger share nothing they can see: extending an older tally leaves the newer one as it was', () => {
    const at = '2026-07-01T00:00:00.000Z';
    const base = tally([{ rewardId: 1, amount: 1, at }]);
    const a = base.with({ rewardId: 2, amount: 2, at });
    const b = base.with({ rewardId: 3, amount: 4, at: '2026-06-01T00:00:00.000Z' });
    const a2 = a.with({ rewardId: 4, amount: 8, at });
    expect([base.has(1), base.has(2), base.has(3), base.has(4)]).toEqual([true, false, false, false]);
    expect([a.has(2), a.has(3), a.has(4)]).toEqual([true, false, false]);
    expect([b.has(2), b.has(3), b.has(4)]).toEqual([false, true, false]);
    expect(a2.has(4) && a2.has(2) && !a2.has(3)).toBe(true);
    expect(base.countedAfter(-Infinity)).toEqual({ count: 1, units: 10_000n });
    expect(a.countedAfter(-Infinity)).toEqual({ count: 2, units: 30_000n });
    // b's reward is earlier than base's: the window looks at each reward, and base's columns are not b's.
    expect(b.countedAfter(Date.parse('2026-06-15T00:00:00.000Z'))).toEqual({ count: 1, units: 10_000n });
    expect(a2.countedAfter(Date.parse('2026-06-15T00:00:00.000Z'))).toEqual({ count: 3, units: 110_000n });
  });
});
