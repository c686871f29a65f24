/** The purchases read model (spec §2.3 Purchase), with its attribution outcome. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { AttributionFailure, NewCustomer, Product, PurchaseEvent } from '../domain/purchase.js';
import { foldCode } from '../../platform/codes.js';

export interface PurchaseDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  order_id: string;
  coupon_code: string | null;
  referral_code: string | null;
  payment_amount: number | null;
  new_customer: NewCustomer | null;
  ip_address: string | null;
  referrer: string | null;
  widget_id: number | null;
  email_address: string | null;
  customer_id: number | null;
  products: Product[];
  conversion_id: number | null;
  attribution_failure: AttributionFailure | null;
}

export const purchasesCollection: CollectionDef = {
  name: 'purchases',
  indexes: [['merchant_id'], ['merchant_id', 'widget_id'], ['merchant_id', 'customer_id'], ['merchant_id', 'order_id']],
  // The buyer's address, network address and the page they came from; amounts and ids stay.
  personal: {
    byAddress: [{ match: 'email_address', erase: ['email_address', 'ip_address', 'referrer'] }],
    byCustomer: [{ match: 'customer_id', erase: ['email_address', 'ip_address', 'referrer'] }],
  },
};

export const purchasesProjection = defineProjection<PurchaseDoc, PurchaseEvent>()({
  name: 'purchases',
  collection: purchasesCollection,
  handles: ['PurchaseRecorded', 'ConversionAttributed', 'AttributionFailed'],
  keys: (event) => [docKey(event.data.purchaseId)],
  evolve(doc, event, key) {
    switch (event.type) {
      case 'PurchaseRecorded': {
        const d = event.data;
        return {
          _id: key,
          id: d.purchaseId,
          merchant_id: d.merchantId,
          order_id: d.orderId,
          coupon_code: d.couponCode,
          referral_code: d.referralCode,
          payment_amount: d.paymentAmount,
          new_customer: d.newCustomer,
          ip_address: d.ipAddress,
          referrer: d.referrer,
          widget_id: d.widgetId,
          email_address: d.emailAddress,
          customer_id: d.customerId,
          products: d.products,
          conversion_id: null,
          attribution_failure: null,
          created_at: d.createdAt,
        };
      }
      case 'ConversionAttributed':
        return doc
          ? {
              ...doc,
              conversion_id: event.data.conversionId,
              widget_id: doc.widget_id ?? event.data.widgetId,
              referral_code: ownCode(doc.referral_code, event.data.referralCode),
              coupon_code: ownCode(doc.coupon_code, event.data.couponCode),
            }
          : null;
      case 'AttributionFailed':
        return doc
          ? {
              ...doc,
              attribution_failure: event.data.reason,
              referral_code: ownCode(doc.referral_code, event.data.referralCode),
              coupon_code: ownCode(doc.coupon_code, event.data.couponCode),
            }
          : null;
    }
  },
});

/**
 * The code a purchase reported, spelled as the link or coupon bank spells it once attribution found
 * it (codes are one code whatever their case or surrounding spaces, and responses name the link's
 * own code: docs/api-decisions.md); the reported text stays in the event. Another code (the
 * coupon's link, when the reported referral code found nothing) leaves the reported one shown.
 */
function ownCode(reported: string | null, own: string | null): string | null {
  return reported !== null && own !== null && reported !== own && foldCode(reported) === foldCode(own) ? own : reported;
}
