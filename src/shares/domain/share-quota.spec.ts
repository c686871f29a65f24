import { TooManyRequestsError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { quotaDay, secondsToNextDay, ShareQuotaCommand, shareQuotaDecider, ShareQuotaEvent } from './share-quota.js';

const now = new Date('2026-11-28T23:30:00.000Z');
const limits = { perCustomer: 50, perMerchant: 120 };
const reserved = (shareId: number, customerId: number | null, recipients: number): ShareQuotaEvent => ({
  type: 'ShareRecipientsReserved',
  data: { merchantId: 1, day: '2026-11-28', shareId, customerId, recipients, reservedAt: now.toISOString() },
});
const reserve = (shareId: number, customerId: number | null, recipients: number): ShareQuotaCommand => ({
  type: 'ReserveShareRecipients',
  merchantId: 1,
  shareId,
  customerId,
  recipients,
  limits,
  now,
});

describe('share quota decider', () => {
  it('reserves recipients up to the per-customer limit, exactly', () => {
    given(shareQuotaDecider, [reserved(1, 7, 30)])
      .when(reserve(2, 7, 20))
      .then([reserved(2, 7, 20)]);
  });

  it('refuses a share past the per-customer limit as too many, to retry at the next UTC midnight, with the limit named', () => {
    const run = () => shareQuotaDecider.decide(reserve(2, 7, 21), [reserved(1, 7, 30)].reduce(shareQuotaDecider.evolve, shareQuotaDecider.initialState()));
    expect(run).toThrow(TooManyRequestsError);
    try {
      run();
    } catch (error) {
      expect([(error as TooManyRequestsError).kind, (error as TooManyRequestsError).advice]).toEqual(['too_many', { 'retry-after': '1800' }]);
      expect((error as TooManyRequestsError).errors[0]).toMatch(/50 email recipients per customer per day/);
    }
  });

  it('counts each customer apart, and every share (merchant ones without a customer too) against the merchant limit', () => {
    const history = [reserved(1, 7, 50), reserved(2, null, 50)];
    given(shareQuotaDecider, history)
      .when(reserve(3, 8, 20))
      .then([reserved(3, 8, 20)]);
    given(shareQuotaDecider, history)
      .when(reserve(3, 8, 21))
      .thenThrows(TooManyRequestsError, /120 email recipients per merchant per day/);
    given(shareQuotaDecider, history)
      .when(reserve(3, null, 21))
      .thenThrows(TooManyRequestsError);
  });

  it('names the UTC day and counts the seconds to its end', () => {
    expect(quotaDay(new Date('2026-11-28T23:59:59.500Z'))).toBe('2026-11-28');
    expect(secondsToNextDay(new Date('2026-11-28T23:59:59.500Z'))).toBe(1);
    expect(secondsToNextDay(new Date('2026-11-28T00:00:00.000Z'))).toBe(86_400);
  });
});
