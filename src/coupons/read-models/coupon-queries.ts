/** Reads over coupon banks and coupon codes, scoped to one merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { docKey } from '../../platform/ids.js';
import { ListQuery, READ_STORE, type ReadCollection, type ReadStore, WalkPage, WalkQuery } from '../../platform/read-store/read-store.js';
import { foldCode } from '../../referral-links/domain/referral-link.js';
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
   * The coupon with this code in the merchant's banks: the code as given, else the one it names in
   * another case or with spaces around it (foldCode), as a friend types it at checkout. A code is in
   * one bank only, and no two of a merchant's codes differ in case alone (CouponTurns); for codes
   * uploaded before those rules, the copy associated with a referral code.
   */
  async byCode(merchantId: number, code: string): Promise<CouponDoc | null> {
    const exact = (await this.coupons.findOne({ merchant_id: merchantId, code, associated: true })) ?? (await this.coupons.findOne({ merchant_id: merchantId, code }));
    if (exact) return exact;
    const folded = foldCode(code);
    return (await this.coupons.findOne({ merchant_id: merchantId, code_lc: folded, associated: true })) ?? this.coupons.findOne({ merchant_id: merchantId, code_lc: folded });
  }

  list(query: ListQuery): Promise<CouponDoc[]> {
    return this.coupons.list(query);
  }

  walk(query: WalkQuery): Promise<WalkPage<CouponDoc>> {
    return this.coupons.walk(query);
  }
}
