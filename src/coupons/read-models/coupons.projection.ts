/** Coupon banks and their codes: which codes exist, which referral code each is associated with. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { CouponBankEvent } from '../domain/coupon-bank.js';
import { CouponAssociated } from '../domain/coupon-association.js';
import { foldCode } from '../../platform/codes.js';

export interface CouponDoc extends ReadDoc {
  merchant_id: number;
  bank_id: number;
  code: string;
  /** foldCode(code): how a code typed in another case (or padded, as uploads once kept it) finds its coupon. */
  code_lc: string;
  referral_code: string | null;
  /** True once a referral code has recorded the association (what GET /v2/coupons lists). */
  associated: boolean;
  widget_id: number | null;
  advocate_customer_id: number | null;
  associated_at: string | null;
}

export interface CouponBankDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  name: string;
  codes_count: number;
  assigned_count: number;
  last_modified_at: string;
}

export const couponsCollection: CollectionDef = {
  name: 'coupons',
  indexes: [
    ['merchant_id', 'associated'],
    ['merchant_id', 'code'],
    ['merchant_id', 'code_lc'],
    ['merchant_id', 'associated', 'advocate_customer_id'],
    ['merchant_id', 'bank_id'],
  ],
};
export const couponBanksCollection: CollectionDef = { name: 'coupon_banks', indexes: [['merchant_id']] };

export const couponKey = (bankId: number, code: string) => `${docKey(bankId)}:${code}`;

type CouponEvent = CouponBankEvent | CouponAssociated;

export const couponsProjection = defineProjection<CouponDoc, CouponEvent>()({
  name: 'coupons',
  collection: couponsCollection,
  handles: ['CouponBankCreated', 'CouponCodesAdded', 'CouponAssigned', 'CouponAssociated'],
  keys(event) {
    switch (event.type) {
      case 'CouponBankCreated':
      case 'CouponCodesAdded':
        return event.data.codes.map((code) => couponKey(event.data.bankId, code));
      case 'CouponAssigned':
        return [couponKey(event.data.bankId, event.data.couponCode)];
      case 'CouponAssociated':
        return [couponKey(event.data.couponBankId, event.data.couponCode)];
    }
  },
  evolve(doc, event, key) {
    switch (event.type) {
      case 'CouponBankCreated':
      case 'CouponCodesAdded': {
        if (doc) return doc;
        const code = key.slice(key.indexOf(':') + 1);
        return {
          _id: key,
          merchant_id: event.data.merchantId,
          bank_id: event.data.bankId,
          code,
          code_lc: foldCode(code),
          referral_code: null,
          associated: false,
          widget_id: null,
          advocate_customer_id: null,
          associated_at: null,
          created_at: event.type === 'CouponBankCreated' ? event.data.createdAt : event.data.addedAt,
        };
      }
      case 'CouponAssigned':
        return doc ? { ...doc, referral_code: event.data.referralCode } : null;
      case 'CouponAssociated':
        return doc
          ? {
              ...doc,
              referral_code: event.data.code,
              associated: true,
              widget_id: event.data.widgetId,
              advocate_customer_id: event.data.advocateCustomerId,
              associated_at: event.data.associatedAt,
              // GET /v2/coupons lists associated coupons oldest first: a coupon takes its place there
              // when it joins the list, at the end (its upload's place put it among those listed
              // before, and a cursor skipped it), and keeps it if associated again.
              created_at: doc.associated ? doc.created_at : event.data.associatedAt,
            }
          : null;
    }
  },
});

export const couponBanksProjection = defineProjection<CouponBankDoc, CouponBankEvent>()({
  name: 'coupon_banks',
  collection: couponBanksCollection,
  handles: ['CouponBankCreated', 'CouponCodesAdded', 'CouponAssigned'],
  keys: (event) => [docKey(event.data.bankId)],
  evolve(doc, event) {
    switch (event.type) {
      case 'CouponBankCreated':
        return {
          _id: docKey(event.data.bankId),
          id: event.data.bankId,
          merchant_id: event.data.merchantId,
          name: event.data.name,
          codes_count: event.data.codes.length,
          assigned_count: 0,
          created_at: event.data.createdAt,
          last_modified_at: event.data.createdAt,
        };
      case 'CouponCodesAdded':
        return doc ? { ...doc, codes_count: doc.codes_count + event.data.codes.length, last_modified_at: event.data.addedAt } : null;
      case 'CouponAssigned':
        return doc ? { ...doc, assigned_count: doc.assigned_count + 1, last_modified_at: event.data.assignedAt } : null;
    }
  },
});
