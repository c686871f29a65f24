/** Reads over the widgets read model, always scoped to one merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '../../platform/errors.js';
import { docKey } from '../../platform/ids.js';
import { everyDoc, ListQuery, READ_STORE, ReadCollection, type ReadStore, WalkPage, WalkQuery } from '../../platform/read-store/read-store.js';
import { WidgetDoc, widgetsCollection } from './widgets.projection.js';

/** What an API version calls a widget variant in its errors: v1 calls it a campaign (spec §9.2). */
export type WidgetNoun = 'widget' | 'campaign';

@Injectable()
export class WidgetQueries {
  readonly collection: ReadCollection<WidgetDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.collection = readStore.collection<WidgetDoc>(widgetsCollection);
  }

  async byId(merchantId: number, id: number): Promise<WidgetDoc | null> {
    const doc = await this.collection.get(docKey(id));
    return doc && doc.merchant_id === merchantId ? doc : null;
  }

  async require(merchantId: number, id: number, noun: WidgetNoun = 'widget'): Promise<WidgetDoc> {
    const doc = await this.byId(merchantId, id);
    if (!doc) throw new NotFoundError([`${noun} ${id} not found`]);
    return doc;
  }

  /**
   * A widget a customer token may use: published, active and not archived. Any other is answered as
   * an unknown one, so a device cannot tell a hidden widget (ids are guessable) from none.
   */
  async requireOffered(merchantId: number, id: number): Promise<WidgetDoc> {
    const doc = await this.byId(merchantId, id);
    if (!doc || !isOffered(doc)) throw new NotFoundError([`widget ${id} not found among the published, active widgets`]);
    return doc;
  }

  /** The merchant's offered widgets in creation order, at most `limit`: what the embedded library and the demo shop show. */
  async offered(merchantId: number, limit: number): Promise<WidgetDoc[]> {
    const found: WidgetDoc[] = [];
    for await (const doc of everyDoc(this.collection, { merchant_id: merchantId }, OFFERED_SCAN_PAGE)) {
      if (isOffered(doc)) found.push(doc);
      if (found.length >= limit) break;
    }
    return found;
  }

  list(query: ListQuery): Promise<WidgetDoc[]> {
    return this.collection.list(query);
  }

  walk(query: WalkQuery): Promise<WalkPage<WidgetDoc>> {
    return this.collection.walk(query);
  }

  count(query: Omit<ListQuery, 'limit'>): Promise<number> {
    return this.collection.count(query);
  }

  /**
   * The distribution each widget is served with, by id: its own when its group has other
   * variants, else 100 (spec §2.2/§2.3: "100 when the campaign has no variants"). One count per
   * group of the page.
   */
  async servedDistributions(docs: readonly WidgetDoc[]): Promise<Map<number, number>> {
    const sizes = new Map<string, number>();
    const served = new Map<number, number>();
    for (const doc of docs) {
      const key = `${doc.merchant_id}:${doc.widget_group_id}`;
      let size = sizes.get(key);
      if (size === undefined) sizes.set(key, (size = await this.count({ where: { merchant_id: doc.merchant_id, widget_group_id: doc.widget_group_id } })));
      served.set(doc.id, size > 1 ? doc.settings.distribution : 100);
    }
    return served;
  }
}

/** Widgets read per page while looking for the offered ones. */
const OFFERED_SCAN_PAGE = 200;

/** Whether the widget is on offer to advocates: published, active and not archived. */
export function isOffered(doc: WidgetDoc): boolean {
  return doc.settings.published && doc.settings.active && !doc.settings.archived;
}
