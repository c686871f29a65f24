/** Reads over erasure jobs, scoped to one merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { docKey } from '../../platform/ids.js';
import { READ_STORE, ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { DeletionJobDoc, deletionJobsCollection } from './deletion-jobs.projection.js';

@Injectable()
export class DeletionJobQueries {
  readonly collection: ReadCollection<DeletionJobDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.collection = readStore.collection<DeletionJobDoc>(deletionJobsCollection);
  }

  /** Another merchant's job is as absent as one that never existed. */
  async byId(merchantId: number, id: number): Promise<DeletionJobDoc | null> {
    const doc = await this.collection.get(docKey(id));
    return doc && doc.merchant_id === merchantId ? doc : null;
  }
}
