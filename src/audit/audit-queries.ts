/** Reads over the audit index, always scoped to one merchant. */
import { Inject, Injectable } from '@nestjs/common';
import { V2Paging, v2ListQuery } from '../platform/http/paging.js';
import { EVENT_STORE, type EventStore } from '../platform/event-store/event-store.js';
import { READ_STORE, ReadCollection, type ReadStore, Scalar } from '../platform/read-store/read-store.js';
import { AuditEntryDoc, auditIndexCollection, EVERY_EVENT } from './audit-index.projection.js';

export interface AuditFilter {
  merchantId: number;
  /** An entity (`customer:123`), or undefined for every event of the merchant. */
  entity?: string;
  stream?: string;
  /** Any of these event types; undefined or empty = every type. */
  types?: string[];
}

function byTimeThenKey(a: AuditEntryDoc, b: AuditEntryDoc): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
}

@Injectable()
export class AuditQueries {
  private readonly entries: ReadCollection<AuditEntryDoc>;

  constructor(
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {
    this.entries = readStore.collection<AuditEntryDoc>(auditIndexCollection);
  }

  /** The data of each entry's event, read from the event store by position (the index keeps none). */
  async dataOf(entries: AuditEntryDoc[]): Promise<Map<string, unknown>> {
    const found = await Promise.all(
      entries.map(async (entry) => {
        const position = BigInt(entry.position);
        const [event] = await this.events.readAll({ after: position - 1n, until: position, maxCount: 1 });
        return [entry.position, event?.data] as const;
      }),
    );
    return new Map(found);
  }

  /**
   * One page (plus one entry, to tell whether more follow) in (created_at, _id) order. Several
   * types are one indexed query each, merged: every query is bounded by the page size.
   */
  async page(filter: AuditFilter, paging: V2Paging): Promise<AuditEntryDoc[]> {
    const base: Record<string, Scalar> = { merchant_id: filter.merchantId, entity: filter.entity ?? EVERY_EVENT };
    if (filter.stream !== undefined) base.stream = filter.stream;
    const types = filter.types?.length ? filter.types : [undefined];
    const lists = await Promise.all(
      types.map((type) => this.entries.list(v2ListQuery(paging, type === undefined ? base : { ...base, type }))),
    );
    if (lists.length === 1) return lists[0];
    return lists.flat().sort(byTimeThenKey).slice(0, paging.limit + 1);
  }

  async exists(merchantId: number, entity: string): Promise<boolean> {
    return (await this.entries.findOne({ merchant_id: merchantId, entity })) !== null;
  }
}
