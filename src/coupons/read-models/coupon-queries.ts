/** Reads over coupon banks and coupon codes, scoped to one merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { docKey } from '../../platform/ids.js';
import { everyDoc, ListQuery, READ_STORE, type ReadCollection, type ReadStore, WalkPage, WalkQuery } from '../../platform/read-store/read-store.js';
import { CouponBankDoc, couponBanksCollection, CouponDoc, couponsCollection } from './coupons.projection.js';
import { foldCode } from '../../platform/codes.js';

/** byCode lookups byCodes has under way at once. */
const LOOKUPS_AT_ONCE = 500;

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
    const exact =
      (await this.coupons.findOne({ merchant_id: merchantId, code, associated: true })) ?? (await this.coupons.findOne({ merchant_id: merchantId, code }));
    if (exact) return exact;
    const folded = foldCode(code);
    return (
      (await this.coupons.findOne({ merchant_id: merchantId, code_lc: folded, associated: true })) ??
      this.coupons.findOne({ merchant_id: merchantId, code_lc: folded })
    );
  }

  /**
   * byCode for many codes: when they outnumber a quarter of the merchant's coupons (byCode asks up
   * to four queries a code), one walk over the merchant's coupons answers them all, in the same
   * order of preference; else byCode for each. A bank of 10,000 codes was 40,000 queries.
   */
  async byCodes(merchantId: number, codes: readonly string[]): Promise<Map<string, CouponDoc | null>> {
    const found = new Map<string, CouponDoc | null>();
    const existing = await this.coupons.count({ where: { merchant_id: merchantId } });
    if (codes.length * 4 <= existing) {
      for (let i = 0; i < codes.length; i += LOOKUPS_AT_ONCE) {
        const chunk = codes.slice(i, i + LOOKUPS_AT_ONCE);
        const docs = await Promise.all(chunk.map((code) => this.byCode(merchantId, code)));
        chunk.forEach((code, k) => found.set(code, docs[k]));
      }
      return found;
    }
    // The first coupon in list order with the code (exact, then folded), an associated one before any other.
    const byCode = new Map<string, CouponDoc>();
    const byFolded = new Map<string, CouponDoc>();
    const keep = (map: Map<string, CouponDoc>, key: string, doc: CouponDoc) => {
      const held = map.get(key);
      if (held === undefined || (!held.associated && doc.associated)) map.set(key, doc);
    };
    if (existing > 0) {
      for await (const doc of everyDoc(this.coupons, { merchant_id: merchantId })) {
        keep(byCode, doc.code, doc);
        keep(byFolded, doc.code_lc, doc);
      }
    }
    for (const code of codes) found.set(code, byCode.get(code) ?? byFolded.get(foldCode(code)) ?? null);
    return found;
  }

  list(query: ListQuery): Promise<CouponDoc[]> {
    return this.coupons.list(query);
  }

  walk(query: WalkQuery): Promise<WalkPage<CouponDoc>> {
    return this.coupons.walk(query);
  }
}
