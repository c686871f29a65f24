/** A coupon of a bank given to a referral link; recorded on the link's stream, read by the coupon models. */
import type { DomainEvent } from '../../platform/event-store/event-store.js';

export type CouponAssociated = DomainEvent<
  'CouponAssociated',
  {
    code: string;
    merchantId: number;
    widgetId: number;
    advocateCustomerId: number | null;
    couponCode: string;
    couponBankId: number;
    associatedAt: string;
  }
>;
