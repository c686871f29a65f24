/** Reads over the webhook read models: endpoints and deliveries. */
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '../../platform/errors.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.js';
import { docKey } from '../../platform/ids.js';
import { ListQuery, READ_STORE, ReadCollection, type ReadStore, WalkPage, WalkQuery } from '../../platform/read-store/read-store.js';
import {
  DueDeliveryDoc,
  WebhookDeliveryDoc,
  WebhookDeliveryEntryDoc,
  deliveryDetails,
  dueDeliveriesCollection,
  webhookDeliveriesCollection,
} from './webhook-deliveries.projection.js';
import { WebhookEndpointDoc, webhookEndpointsCollection } from './webhook-endpoints.projection.js';

const ALL = 1_000_000;

@Injectable()
export class WebhookEndpointQueries {
  readonly collection: ReadCollection<WebhookEndpointDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.collection = readStore.collection<WebhookEndpointDoc>(webhookEndpointsCollection);
  }

  /** Any endpoint, deleted or not, of any merchant. */
  byId(id: number): Promise<WebhookEndpointDoc | null> {
    return this.collection.get(docKey(id));
  }

  async require(merchantId: number, id: number): Promise<WebhookEndpointDoc> {
    const doc = await this.byId(id);
    if (!doc || doc.deleted || doc.merchant_id !== merchantId) throw new NotFoundError([`webhook endpoint ${id} not found`]);
    return doc;
  }

  /** A merchant's live endpoints, oldest first. */
  ofMerchant(merchantId: number): Promise<WebhookEndpointDoc[]> {
    return this.collection.list({ where: { merchant_id: merchantId, deleted: false }, limit: ALL });
  }

  /** Every endpoint of every merchant, deleted ones included (the dispatcher's sweep). */
  all(): Promise<WebhookEndpointDoc[]> {
    return this.collection.list({ limit: ALL });
  }
}

@Injectable()
export class WebhookDeliveryQueries {
  readonly deliveries: ReadCollection<WebhookDeliveryEntryDoc>;
  readonly due: ReadCollection<DueDeliveryDoc>;

  constructor(
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {
    this.deliveries = readStore.collection<WebhookDeliveryEntryDoc>(webhookDeliveriesCollection);
    this.due = readStore.collection<DueDeliveryDoc>(dueDeliveriesCollection);
  }

  async byId(merchantId: number, id: number): Promise<WebhookDeliveryEntryDoc | null> {
    const doc = await this.deliveries.get(docKey(id));
    return doc && doc.merchant_id === merchantId ? doc : null;
  }

  async require(merchantId: number, id: number): Promise<WebhookDeliveryEntryDoc> {
    const doc = await this.byId(merchantId, id);
    if (!doc) throw new NotFoundError([`webhook delivery ${id} not found`]);
    return doc;
  }

  list(query: ListQuery): Promise<WebhookDeliveryEntryDoc[]> {
    return this.deliveries.list(query);
  }

  walk(query: WalkQuery): Promise<WalkPage<WebhookDeliveryEntryDoc>> {
    return this.deliveries.walk(query);
  }

  /** Each entry's delivery as the log shows it, from the delivery's own events (in the entries' order). */
  details(entries: readonly WebhookDeliveryEntryDoc[]): Promise<WebhookDeliveryDoc[]> {
    return Promise.all(
      entries.map(async (entry) => {
        const doc = deliveryDetails(entry, await this.store.readStream(entry.stream));
        if (!doc) throw new Error(`the stream of webhook delivery ${entry.id} (${entry.stream}) holds no scheduling`);
        return doc;
      }),
    );
  }

  /** Pending deliveries of one endpoint, earliest due first; `dueBefore` (exclusive) limits them to those due. */
  dueFor(endpointId: number, dueBefore: string | undefined, limit: number): Promise<DueDeliveryDoc[]> {
    return this.due.list({ where: { endpoint_id: endpointId }, before: dueBefore, limit });
  }

  /** How many pending deliveries are due before `dueBefore` (exclusive), every endpoint's. */
  dueCount(dueBefore: string): Promise<number> {
    return this.due.count({ before: dueBefore });
  }

  /** The earliest pending delivery due at or after `from`. */
  async nextDue(from: string): Promise<DueDeliveryDoc | null> {
    const [first] = await this.due.list({ from, limit: 1 });
    return first ?? null;
  }
}
