/** Reads over the customers read model, always scoped to one merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { docKey } from '../../platform/ids.js';
import { ListQuery, READ_STORE, ReadCollection, type ReadStore, Scalar, WalkPage, WalkQuery } from '../../platform/read-store/read-store.js';
import { CustomerDoc, customersCollection } from './customers.projection.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';

@Injectable()
export class CustomerQueries {
  readonly collection: ReadCollection<CustomerDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.collection = readStore.collection<CustomerDoc>(customersCollection);
  }

  /** Another merchant's customer is as absent as one that never existed. */
  async byId(merchantId: number, id: number): Promise<CustomerDoc | null> {
    const doc = await this.collection.get(docKey(id));
    return doc && doc.merchant_id === merchantId ? doc : null;
  }

  async byAccountId(merchantId: number, accountId: string): Promise<CustomerDoc | null> {
    return this.collection.findOne({ merchant_id: merchantId, account_id: accountId });
  }

  async find(merchantId: number, filters: { account_id?: string; email?: string }): Promise<CustomerDoc | null> {
    const where: Record<string, Scalar> = { merchant_id: merchantId };
    if (filters.account_id !== undefined) where.account_id = filters.account_id;
    if (filters.email !== undefined) where.email_lc = normaliseEmail(filters.email);
    return this.collection.findOne(where);
  }

  list(query: ListQuery): Promise<CustomerDoc[]> {
    return this.collection.list(query);
  }

  walk(query: WalkQuery): Promise<WalkPage<CustomerDoc>> {
    return this.collection.walk(query);
  }

  count(query: Omit<ListQuery, 'limit'>): Promise<number> {
    return this.collection.count(query);
  }
}
