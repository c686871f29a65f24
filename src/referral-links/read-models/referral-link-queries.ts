/** Reads over referral links, scoped to one merchant (the public redirect reads any code). */
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '../../platform/errors.js';
import { ListQuery, READ_STORE, type ReadCollection, type ReadStore, WalkPage, WalkQuery } from '../../platform/read-store/read-store.js';
import { ReferralLinkDoc, referralLinksCollection } from './referral-links.projection.js';
import { foldCode } from '../../platform/codes.js';

@Injectable()
export class ReferralLinkQueries {
  readonly collection: ReadCollection<ReferralLinkDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.collection = readStore.collection<ReferralLinkDoc>(referralLinksCollection);
  }

  /**
   * Any merchant's code: only for the public trackable link. The code as given first, then in
   * any case (foldCode): people type codes, and `ALAN-OUTDOORS` means `Alan-Outdoors`.
   */
  async byCodeAnyMerchant(code: string): Promise<ReferralLinkDoc | null> {
    return (await this.collection.get(code)) ?? this.collection.findOne({ code_lc: foldCode(code) });
  }

  /** The merchant's code, as given first, then in any case (foldCode). */
  async byCode(merchantId: number, code: string): Promise<ReferralLinkDoc | null> {
    const doc = await this.collection.get(code);
    if (doc && doc.merchant_id === merchantId) return doc;
    return this.collection.findOne({ code_lc: foldCode(code), merchant_id: merchantId });
  }

  /** A code that differs from `code` in case alone (or in surrounding spaces), of any merchant: the two would be one code to whoever types it. */
  async caseVariantOf(code: string): Promise<ReferralLinkDoc | null> {
    const doc = await this.collection.findOne({ code_lc: foldCode(code) });
    return doc && doc.code !== code ? doc : null;
  }

  async require(merchantId: number, code: string): Promise<ReferralLinkDoc> {
    const doc = await this.byCode(merchantId, code);
    if (!doc) throw new NotFoundError([`referral code ${code.slice(0, 64)} not found`]);
    return doc;
  }

  /**
   * An advocate's personal link on a widget, if made: by default the customer or email PURL (what
   * POST /v1/referral_codes makes), or the vanity PURL an admin made for that advocate.
   */
  personalLinkOf(
    merchantId: number,
    widgetId: number,
    advocate: { customerId: number } | { email: string },
    kind: 'made' | 'vanity' = 'made',
  ): Promise<ReferralLinkDoc | null> {
    return this.collection.findOne(
      'customerId' in advocate
        ? {
            merchant_id: merchantId,
            personal: true,
            advocate_customer_id: advocate.customerId,
            widget_id: widgetId,
            type: kind === 'vanity' ? 'vanity_personal_url' : 'customer_personal_url',
          }
        : {
            merchant_id: merchantId,
            personal: true,
            advocate_email_lc: advocate.email.toLowerCase(),
            widget_id: widgetId,
            type: kind === 'vanity' ? 'vanity_personal_url' : 'email_personal_url',
          },
    );
  }

  list(query: ListQuery): Promise<ReferralLinkDoc[]> {
    return this.collection.list(query);
  }

  walk(query: WalkQuery): Promise<WalkPage<ReferralLinkDoc>> {
    return this.collection.walk(query);
  }

  /** The newest `n` links of an advocate, newest first. */
  async recentOf(merchantId: number, customerId: number, n: number): Promise<ReferralLinkDoc[]> {
    const where = { merchant_id: merchantId, advocate_customer_id: customerId };
    const total = await this.collection.count({ where });
    const docs = await this.collection.list({ where, offset: Math.max(0, total - n), limit: n });
    return docs.reverse();
  }
}
