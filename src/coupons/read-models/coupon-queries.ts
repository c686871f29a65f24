/** Reads over coupon banks and coupon codes, scoped to one merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { docKey } from '../../platform/ids.js';
import { ListQuery, READ_STORE, type ReadCollection, type ReadStore , WalkPage, WalkQuery } from '../../platform/read-store/read-store.js';
import { CouponBankDoc, couponBanksCollection, CouponDoc, couponsCollection } from './coupons.projection.js';

@Injectable()
export class CouponQueries {
  readonly coupons: ReadCollection<CouponDoc>;
  readonly banks: ReadCollection<CouponBankDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.coupons = readStore.collection<CouponDoc>(couponsCollection);
    this.banks = readStore.collection<CouponBankDoc>(couponBanksCollection);
  }

  async bank(merchantId: number, bankId: number): Promise<CouponBankDoc | null> {
    const doc = await this.banks.get(docKey(bankId));
    return doc && doc.merchant_id === merchantId ? doc : null;
  }

  /**
   * The coupon with this code in the merchant's banks. A code is in one bank only (CouponTurns);
   * for a code uploaded to two banks before that rule, the copy associated with a referral code.
   */
  async byCode(merchantId: number, code: string): Promise<CouponDoc | null> {
    return (await this.coupons.findOne({ merchant_id: merchantId, code, associated: true })) ?? this.coupons.findOne({ merchant_id: merchantId, code });
  }

  list(query: ListQuery): Promise<CouponDoc[]> {
    return this.coupons.list(query);
  }

  walk(query: WalkQuery): Promise<WalkPage<CouponDoc>> {
    return this.coupons.walk(query);
  }
}
