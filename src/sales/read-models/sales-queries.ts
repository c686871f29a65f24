/** Reads over purchases, conversions and rewards, scoped to one merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '../../platform/errors.js';
import { docKey } from '../../platform/ids.js';
import { READ_STORE, type ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { ConversionDoc, conversionsCollection } from './conversions.projection.js';
import { RewardDoc, rewardsCollection } from './rewards.projection.js';
import { PurchaseDoc, purchasesCollection } from './purchases.projection.js';

@Injectable()
export class SalesQueries {
  readonly purchases: ReadCollection<PurchaseDoc>;
  readonly conversions: ReadCollection<ConversionDoc>;
  readonly rewards: ReadCollection<RewardDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.purchases = readStore.collection<PurchaseDoc>(purchasesCollection);
    this.conversions = readStore.collection<ConversionDoc>(conversionsCollection);
    this.rewards = readStore.collection<RewardDoc>(rewardsCollection);
  }

  private async owned<T extends { merchant_id: number }>(
    collection: ReadCollection<T & { _id: string; created_at: string }>,
    merchantId: number,
    id: number,
    what: string,
  ): Promise<T> {
    const doc = await collection.get(docKey(id));
    if (!doc || doc.merchant_id !== merchantId) throw new NotFoundError([`${what} ${id} not found`]);
    return doc;
  }

  purchase(merchantId: number, id: number): Promise<PurchaseDoc> {
    return this.owned(this.purchases, merchantId, id, 'purchase');
  }

  conversion(merchantId: number, id: number): Promise<ConversionDoc> {
    return this.owned(this.conversions, merchantId, id, 'conversion');
  }

  reward(merchantId: number, id: number): Promise<RewardDoc> {
    return this.owned(this.rewards, merchantId, id, 'reward');
  }
}
