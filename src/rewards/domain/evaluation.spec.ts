import { DEFAULT_CRITERIA, DEFAULT_FRAUD_CHECKS } from '../../widgets/domain/widget.js';
import { EvaluationFacts, normaliseForComparison, rejectionReasons, withinCap } from './evaluation.js';

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

  it("same email against any of the advocate's addresses: the link's and the customer's current one", () => {
    const fraudChecks = { ...base.fraudChecks, sameEmail: true };
    const friend = { ...base.friend, emails: ['later@example.com'] };
    expect(rejectionReasons({ ...base, fraudChecks, friend, advocate: { ...base.advocate, emails: ['ann@example.com', 'later@example.com'] } })).toEqual(['same_email']);
    expect(rejectionReasons({ ...base, fraudChecks, friend, advocate: { ...base.advocate, emails: [] } })).toEqual([]);
  });

  it('similar email after normalisation of common providers', () => {
    const fraudChecks = { ...base.fraudChecks, similarEmail: true };
    const advocate = { ...base.advocate, emails: ['ann.lee@gmail.com'] };
    expect(rejectionReasons({ ...base, fraudChecks, advocate, friend: { ...base.friend, emails: ['AnnLee+deals@googlemail.com'] } })).toEqual(['similar_email']);
    expect(rejectionReasons({ ...base, fraudChecks, advocate, friend: { ...base.friend, emails: ['ann.lee2@gmail.com'] } })).toEqual([]);
    // Dots matter outside Gmail.
    expect(normaliseForComparison('a.b@example.com')).toBe('a.b@example.com');
    expect(normaliseForComparison('a.b+x@outlook.com')).toBe('a.b@outlook.com');
    // With same_email also on, an exact match reports same_email only.
    expect(rejectionReasons({ ...base, fraudChecks: { ...fraudChecks, sameEmail: true }, friend: { ...base.friend, emails: ['ann@example.com'] } })).toEqual(['same_email']);
  });

  it('same IP as the share or link creation', () => {
    const fraudChecks = { ...base.fraudChecks, sameIp: true };
    expect(rejectionReasons({ ...base, fraudChecks, purchase: { ...base.purchase, ipAddress: '203.0.113.1' } })).toEqual(['same_ip']);
    expect(rejectionReasons({ ...base, fraudChecks, advocate: { ...base.advocate, ipAddress: null }, purchase: { ...base.purchase, ipAddress: null } })).toEqual([]);
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
    expect(rejectionReasons({ ...base, fraudChecks, advocate: { ...base.advocate, ipAddress: linkIp }, purchase: { ...base.purchase, ipAddress: purchaseIp } })).toEqual(['same_ip']);
  });

  it('different IPs are not the same IP', () => {
    const fraudChecks = { ...base.fraudChecks, sameIp: true };
    for (const [a, b] of [['2001:db8::1', '2001:db8::2'], ['10.0.0.1', '::ffff:10.0.0.2'], ['127.0.0.1', '::127.0.0.1']]) {
      expect(rejectionReasons({ ...base, fraudChecks, advocate: { ...base.advocate, ipAddress: a }, purchase: { ...base.purchase, ipAddress: b } })).toEqual([]);
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
    expect(withinCap({ maxCount: 2, maxAmount: null, windowDays: null }, [old, recent], 10, now)).toBe(false);
    expect(withinCap({ maxCount: 2, maxAmount: null, windowDays: 30 }, [old, recent], 10, now)).toBe(true);
    expect(withinCap({ maxCount: null, maxAmount: 25, windowDays: null }, [old], 10, now)).toBe(true);
    expect(withinCap({ maxCount: null, maxAmount: 25, windowDays: null }, [old, recent], 10, now)).toBe(false);
  });

  it('adds amounts exactly: three rewards of 0.1 fit a cap of 0.3, a fourth does not', () => {
    const now = new Date('2026-07-10T00:00:00.000Z');
    const dime = (rewardId: number) => ({ rewardId, amount: 0.1, at: '2026-07-01T00:00:00.000Z' });
    const rule = { maxCount: null, maxAmount: 0.3, windowDays: null };
    expect(withinCap(rule, [dime(1), dime(2)], 0.1, now)).toBe(true);
    expect(withinCap(rule, [dime(1), dime(2), dime(3)], 0.1, now)).toBe(false);
    expect(withinCap({ ...rule, maxAmount: 0.7 }, [dime(1), dime(2), dime(3), dime(4), dime(5), dime(6)], 0.1, now)).toBe(true);
  });
});
