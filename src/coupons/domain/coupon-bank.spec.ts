import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { CouponBankEvent, couponBankDecider } from './coupon-bank.js';

const now = new Date('2026-05-01T00:00:00.000Z');
const at = now.toISOString();
const created: CouponBankEvent = { type: 'CouponBankCreated', data: { bankId: 9, merchantId: 1, name: 'Spring', codes: ['A', 'B'], createdAt: at } };
const assignedA: CouponBankEvent = { type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'A', referralCode: 'ref1', assignedAt: at } };

describe('coupon bank decider', () => {
  it('creates a bank without duplicate codes', () => {
    given(couponBankDecider, []).when({ type: 'CreateCouponBank', bankId: 9, merchantId: 1, name: 'Spring', codes: ['A', 'B', 'A'], now }).then([created]);
  });

  it('adds only new codes', () => {
    given(couponBankDecider, [created])
      .when({ type: 'AddCouponCodes', bankId: 9, merchantId: 1, codes: ['B', 'C'], now })
      .then([{ type: 'CouponCodesAdded', data: { bankId: 9, merchantId: 1, codes: ['C'], addedAt: at } }]);
    given(couponBankDecider, [created]).when({ type: 'AddCouponCodes', bankId: 9, merchantId: 1, codes: ['A'], now }).then([]);
  });

  it('hands out the next available code, and none once all are taken', () => {
    given(couponBankDecider, [created]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref1', now }).then([assignedA]);
    given(couponBankDecider, [created, assignedA])
      .when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref2', now })
      .then([{ type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'B', referralCode: 'ref2', assignedAt: at } }]);
    const assignedB: CouponBankEvent = { type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'B', referralCode: 'ref2', assignedAt: at } };
    given(couponBankDecider, [created, assignedA, assignedB]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref3', now }).thenThrows(ConflictError);
  });

  it('draws nothing more for a referral code that already holds one of its codes, even once all are taken', () => {
    given(couponBankDecider, [created, assignedA]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref1', now }).then([]);
    const assignedB: CouponBankEvent = { type: 'CouponAssigned', data: { bankId: 9, merchantId: 1, couponCode: 'B', referralCode: 'ref2', assignedAt: at } };
    given(couponBankDecider, [created, assignedA, assignedB]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, referralCode: 'ref2', now }).then([]);
  });

  it('gives a named code to one referral code only, repeatably to the same one', () => {
    given(couponBankDecider, [created, assignedA]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, couponCode: 'A', referralCode: 'ref1', now }).then([]);
    given(couponBankDecider, [created, assignedA]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, couponCode: 'A', referralCode: 'ref2', now }).thenThrows(ConflictError);
    given(couponBankDecider, [created]).when({ type: 'AssignCoupon', bankId: 9, merchantId: 1, couponCode: 'Z', referralCode: 'ref1', now }).thenThrows(BadRequestError);
  });

  it("treats another merchant's bank as unknown", () => {
    given(couponBankDecider, [created]).when({ type: 'AddCouponCodes', bankId: 9, merchantId: 2, codes: ['C'], now }).thenThrows(NotFoundError);
  });
});
