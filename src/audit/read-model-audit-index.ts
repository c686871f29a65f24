/**
 * The AuditIndex port over the `audit_index` read model (audit-index.projection.ts): the server
 * deployment's adapter (EventStoreDB + MongoDB, or memory when MONGO_URL is unset). Every page is
 * one indexed range query of `limit + 1` entries (several types: one bounded query per type,
 * merged); each entry's data is read from the event store by position (the index keeps none).
 */
import { EventStore } from '../platform/event-store/event-store.js';
import { V2Paging, v2ListQuery } from '../platform/http/paging.js';
import { compareIds, ReadCollection, ReadStore, Scalar } from '../platform/read-store/read-store.js';
import { AuditEntry, AuditEntryDoc, AuditFilter, AuditIndex, EVERY_EVENT } from './audit-index.js';
import { auditIndexCollection } from './audit-index.projection.js';

/** Event-store reads one page has under way at once. */
export const READS_AT_ONCE = 8;

function byTimeThenKey(a: AuditEntryDoc, b: AuditEntryDoc): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return compareIds(a._id, b._id);
}

export class ReadModelAuditIndex implements AuditIndex {
  private readonly entries: ReadCollection<AuditEntryDoc>;

  constructor(
    readStore: ReadStore,
    private readonly events: EventStore,
  ) {
    this.entries = readStore.collection<AuditEntryDoc>(auditIndexCollection);
  }

  async page(filter: AuditFilter, paging: V2Paging): Promise<AuditEntry[]> {
    const base: Record<string, Scalar> = { merchant_id: filter.merchantId, entity: filter.entity ?? EVERY_EVENT };
    if (filter.stream !== undefined) base.stream = filter.stream;
    const types = filter.types?.length ? filter.types : [undefined];
    const lists = await Promise.all(types.map((type) => this.entries.list(v2ListQuery(paging, type === undefined ? base : { ...base, type }))));
    const docs =
      lists.length === 1
        ? lists[0]
        : lists
            .flat()
            .sort(byTimeThenKey)
            .slice(0, paging.limit + 1);
    // A few reads at a time: a page of 100 entries made 100 concurrent reads of the event store.
    const entries: AuditEntry[] = new Array(docs.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < docs.length; i = next++) entries[i] = { ...docs[i], data: await this.dataOf(docs[i]) };
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, docs.length) }, worker));
    return entries;
  }

  async exists(merchantId: number, entity: string): Promise<boolean> {
    return (await this.entries.findOne({ merchant_id: merchantId, entity })) !== null;
  }

  /** The data of an entry's event, read from the event store by position. */
  private async dataOf(entry: AuditEntryDoc): Promise<unknown> {
    const position = BigInt(entry.position);
    const [event] = await this.events.readAll({ after: position - 1n, until: position, maxCount: 1 });
    return event?.data;
  }
}
