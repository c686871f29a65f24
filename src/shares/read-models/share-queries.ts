/** Reads over shares and reminder emails, scoped to one merchant, and the share pollers' queues. */
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '../../platform/errors.js';
import { docKey } from '../../platform/ids.js';
import { DueDoc } from '../../platform/projections/due-queue.js';
import { READ_STORE, type ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { ReminderEmailDoc, reminderEmailsCollection, ShareDoc, sharesCollection } from './shares.projection.js';
import { remindersDueProjection, shareEmailsDueProjection } from './share-queues.js';

@Injectable()
export class ShareQueries {
  readonly shares: ReadCollection<ShareDoc>;
  readonly reminders: ReadCollection<ReminderEmailDoc>;
  /** Shares whose emails are not decided yet, by when they are next due (share-queues.ts). */
  readonly emailsDue: ReadCollection<DueDoc>;
  /** Reminders scheduled and not sent or cancelled, by their time. */
  readonly remindersDue: ReadCollection<DueDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.shares = readStore.collection<ShareDoc>(sharesCollection);
    this.reminders = readStore.collection<ReminderEmailDoc>(reminderEmailsCollection);
    this.emailsDue = readStore.collection<DueDoc>(shareEmailsDueProjection.collection);
    this.remindersDue = readStore.collection<DueDoc>(remindersDueProjection.collection);
  }

  async share(merchantId: number, id: number): Promise<ShareDoc> {
    const doc = await this.shares.get(docKey(id));
    if (!doc || doc.merchant_id !== merchantId) throw new NotFoundError([`share ${id} not found`]);
    return doc;
  }

  async reminder(merchantId: number, id: number): Promise<ReminderEmailDoc> {
    const doc = await this.reminders.get(docKey(id));
    if (!doc || doc.merchant_id !== merchantId) throw new NotFoundError([`reminder email ${id} not found`]);
    return doc;
  }

  /** An advocate's newest shares, newest first. */
  async recentOf(merchantId: number, customerId: number, n: number): Promise<ShareDoc[]> {
    const where = { merchant_id: merchantId, customer_id: customerId };
    const total = await this.shares.count({ where });
    return (await this.shares.list({ where, offset: Math.max(0, total - n), limit: n })).reverse();
  }
}
