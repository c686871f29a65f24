import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { Attribution, PurchaseEvent, PurchaseRecorded, purchaseDecider, purchaseStream } from './purchase.js';

const now = new Date('2026-07-01T12:00:00.000Z');
const at = now.toISOString();
const facts: Omit<PurchaseRecorded['data'], 'createdAt'> = {
  purchaseId: 50,
  merchantId: 1,
  orderId: 'o-1',
  paymentAmount: 120,
  newCustomer: 'yes',
  couponCode: null,
  referralCode: 'abcd2345',
  emailAddress: 'friend@example.com',
  ipAddress: '198.51.100.4',
  referrer: null,
  customerId: 22,
  widgetId: null,
  products: [{ sku: 'tent', quantity: 1, price: 120 }],
};
const recorded: PurchaseRecorded = { type: 'PurchaseRecorded', data: { ...facts, createdAt: at } };
const converted: Attribution = {
  kind: 'converted',
  conversion: {
    conversionId: 60,
    widgetId: 3,
    referralCode: 'abcd2345',
    couponCode: null,
    channel: 'personal_url',
    source: { type: 'referral_link', code: 'abcd2345' },
    advocateCustomerId: 11,
    advocateEmailAddress: 'ann@example.com',
  },
};
const conversionEvent: PurchaseEvent = {
  type: 'ConversionAttributed',
  data: {
    ...(converted as Extract<Attribution, { kind: 'converted' }>).conversion,
    purchaseId: 50,
    merchantId: 1,
    friendCustomerId: 22,
    friendEmailAddress: 'friend@example.com',
    createdAt: at,
  },
};

describe('purchase decider', () => {
  it('records a purchase and its conversion in one decision', () => {
    given(purchaseDecider, [])
      .when({ type: 'RecordPurchase', ...facts, attribution: converted, now })
      .then([recorded, conversionEvent]);
  });

  it('records a purchase with no code and no attribution', () => {
    given(purchaseDecider, [])
      .when({ type: 'RecordPurchase', ...facts, referralCode: null, attribution: { kind: 'none' }, now })
      .then([{ type: 'PurchaseRecorded', data: { ...facts, referralCode: null, createdAt: at } }]);
  });

  it('keeps the reason when a code attributes to nobody', () => {
    given(purchaseDecider, [])
      .when({
        type: 'RecordPurchase',
        ...facts,
        attribution: { kind: 'failed', reason: 'blacklisted_referral_code', referralCode: 'abcd2345', couponCode: null },
        now,
      })
      .then([
        recorded,
        {
          type: 'AttributionFailed',
          data: { purchaseId: 50, merchantId: 1, reason: 'blacklisted_referral_code', referralCode: 'abcd2345', couponCode: null, failedAt: at },
        },
      ]);
  });

  it('refuses a second purchase with the same order id', () => {
    given(purchaseDecider, [recorded])
      .when({ type: 'RecordPurchase', ...facts, purchaseId: 51, attribution: { kind: 'none' }, now })
      .thenThrows(ConflictError);
  });

  it('converts an existing purchase explicitly, once', () => {
    given(purchaseDecider, [recorded])
      .when({ type: 'AttributeConversion', purchaseId: 50, merchantId: 1, attribution: converted, now })
      .then([conversionEvent]);
    given(purchaseDecider, [recorded, conversionEvent])
      .when({ type: 'AttributeConversion', purchaseId: 50, merchantId: 1, attribution: converted, now })
      .thenThrows(ConflictError);
    given(purchaseDecider, []).when({ type: 'AttributeConversion', purchaseId: 50, merchantId: 1, attribution: converted, now }).thenThrows(NotFoundError);
    given(purchaseDecider, [recorded])
      .when({ type: 'AttributeConversion', purchaseId: 50, merchantId: 2, attribution: converted, now })
      .thenThrows(NotFoundError);
  });

  it('names one stream per merchant and order id', () => {
    expect(purchaseStream(1, 'o/1')).not.toBe(purchaseStream(2, 'o/1'));
    expect(purchaseStream(1, 'o-1')).toMatch(/^purchase-1-[A-Za-z0-9_-]+$/);
  });
});
