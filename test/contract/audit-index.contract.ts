/**
 * The contract every AuditIndex adapter keeps (src/audit/audit-index.ts): entries of one
 * merchant in (created_at, `_id`) order, `_id`s that sort like positions within an entity,
 * keyset paging of `limit + 1` entries, from/to, types (merged), stream, entity, tenant
 * isolation, and nothing indexed for events of no merchant. Each adapter's spec calls this with
 * a factory that returns an empty event store, its index, and the clock the store records with.
 */
import { ManualClock } from '../../src/platform/clock.js';
import { EventStore, NewEvent, RecordedEvent } from '../../src/platform/event-store/event-store.js';
import { V2Paging } from '../../src/platform/http/paging.js';
import { AuditEntry, AuditFilter, AuditIndex, entryId, EVERY_EVENT } from '../../src/audit/audit-index.js';

export interface AuditIndexHarness {
  index: AuditIndex;
  events: EventStore;
  clock: ManualClock;
  /** Makes everything appended so far visible to the index (the projection adapter replays). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const T0 = '2026-03-01T09:00:00.000Z';
const T_BACK = '2026-03-03T00:00:00.000Z';
const T1 = '2026-03-05T10:00:00.000Z';

export function auditIndexContract(name: string, make: () => Promise<AuditIndexHarness>): void {
  describe(`AuditIndex contract: ${name}`, () => {
    let h: AuditIndexHarness;
    /** Every appended event by a short name. */
    const e: Record<string, RecordedEvent> = {};

    const append = async (at: string, stream: string, events: (NewEvent & { name: string })[]) => {
      h.clock.set(new Date(at));
      const result = await h.events.append(
        stream,
        events.map(({ name: _, ...event }) => event),
        'any',
      );
      result.events.forEach((recorded, i) => (e[events[i].name] = recorded));
    };
    const page = (filter: AuditFilter, paging: Partial<V2Paging> = {}) => h.index.page(filter, { limit: 100, ...paging });
    const names = (entries: AuditEntry[]) => entries.map((entry) => Object.keys(e).find((n) => e[n].id === entry.event_id) ?? `?${entry.event_id}`);
    /** Follows the cursor the way v2Page does, `limit` at a time. */
    const all = async (filter: AuditFilter, limit: number, window: Partial<V2Paging> = {}) => {
      const out: AuditEntry[] = [];
      let after: V2Paging['after'];
      for (let pages = 0; ; pages += 1) {
        expect(pages).toBeLessThan(50);
        const got = await page(filter, { ...window, limit, after });
        expect(got.length).toBeLessThanOrEqual(limit + 1);
        const shown = got.slice(0, limit);
        out.push(...shown);
        if (got.length <= limit) return out;
        const last = shown[shown.length - 1];
        after = { at: last.created_at, _id: last._id };
      }
    };

    beforeEach(async () => {
      h = await make();
      for (const k of Object.keys(e)) delete e[k];
      await append(T0, 'merchant-1', [
        { name: 'm1', type: 'MerchantRegistered', data: { merchantId: 1, name: 'A', secretKey: 'sk_secret' }, metadata: { merchantId: 1 } },
      ]);
      await append(T0, 'merchant-2', [{ name: 'm2', type: 'MerchantRegistered', data: { merchantId: 2, name: 'B' }, metadata: { merchantId: 2 } }]);
      await append(T0, 'widget-10', [{ name: 'w10', type: 'WidgetCreated', data: { widgetId: 10, merchantId: 1 }, metadata: { merchantId: 1 } }]);
      await append(T0, 'customer-1-ann', [{ name: 'ann', type: 'CustomerRegistered', data: { customerId: 100, merchantId: 1 } }]);
      await append(T0, 'customer-2-bob', [{ name: 'bob', type: 'CustomerRegistered', data: { customerId: 200, merchantId: 2 }, metadata: { merchantId: 2 } }]);
      // Of no merchant, and of two merchants at once: indexed for nobody.
      await append(T0, 'housekeeping', [{ name: 'chore', type: 'Housekeeping', data: { customerId: 100 } }]);
      await append(T0, 'customer-1-odd', [{ name: 'odd', type: 'CustomerRegistered', data: { customerId: 300, merchantId: 2 }, metadata: { merchantId: 1 } }]);
      await append(T1, 'customer-1-ann', [
        { name: 'annUpdated', type: 'CustomerUpdated', data: { customerId: 100, merchantId: 1, changes: { lastName: 'Lee' } } },
      ]);
      await append(T1, 'merchant-1', [{ name: 'm1Renamed', type: 'MerchantRenamed', data: { merchantId: 1, name: 'A2' } }]);
      // The clock stepped back: recorded later in the log, earlier in time.
      await append(T_BACK, 'purchase-1-x', [
        { name: 'purchase', type: 'PurchaseRecorded', data: { purchaseId: 5, customerId: 100, widgetId: 10, merchantId: 1, source: { shareId: 7 } } },
      ]);
      // Two events of one append share a millisecond: position breaks the tie.
      await append(T1, 'customer-1-cara', [
        { name: 'cara', type: 'CustomerRegistered', data: { customerId: 101, merchantId: 1 } },
        { name: 'caraUpdated', type: 'CustomerUpdated', data: { customerId: 101, merchantId: 1, changes: { firstName: 'C' } } },
      ]);
      await h.settle();
    });
    afterEach(async () => {
      await h.close();
    });

    it("lists a merchant's events by time recorded, then position, each with its event's data", async () => {
      const entries = await page({ merchantId: 1 });
      expect(names(entries)).toEqual(['m1', 'w10', 'ann', 'purchase', 'annUpdated', 'm1Renamed', 'cara', 'caraUpdated']);
      const purchase = entries[3];
      expect({ ...purchase, _pos: undefined }).toEqual({
        _id: entryId(EVERY_EVENT, e.purchase.position),
        _pos: undefined,
        merchant_id: 1,
        entity: EVERY_EVENT,
        event_id: e.purchase.id,
        type: 'PurchaseRecorded',
        stream: 'purchase-1-x',
        revision: 0,
        position: e.purchase.position.toString(),
        created_at: T_BACK,
        data: e.purchase.data,
      });
      // Stored as appended: redaction is the presenter's job.
      expect(entries[0].data).toEqual({ merchantId: 1, name: 'A', secretKey: 'sk_secret' });
      expect(entries[7]).toMatchObject({ stream: 'customer-1-cara', revision: 1, created_at: T1, entity: EVERY_EVENT });
    });

    it('gives `limit + 1` entries, and a cursor pages through them without gaps or repeats', async () => {
      const whole = await page({ merchantId: 1 });
      expect(await page({ merchantId: 1 }, { limit: 3 })).toEqual(whole.slice(0, 4));
      for (const limit of [1, 2, 3, 7, 8]) expect({ limit, paged: names(await all({ merchantId: 1 }, limit)) }).toEqual({ limit, paged: names(whole) });
      for (const limit of [1, 2]) expect(names(await all({ merchantId: 1, entity: 'customer:100' }, limit))).toEqual(['ann', 'purchase', 'annUpdated']);
      // Keyset paging: an event recorded (clock back) before the cursor does not shift the next page.
      const first = await page({ merchantId: 1 }, { limit: 4 });
      await append(T0, 'customer-1-late', [{ name: 'late', type: 'CustomerRegistered', data: { customerId: 102, merchantId: 1 } }]);
      await h.settle();
      const last = first[3];
      const next = await page({ merchantId: 1 }, { limit: 4, after: { at: last.created_at, _id: last._id } });
      expect(names(next)).toEqual(['annUpdated', 'm1Renamed', 'cara', 'caraUpdated']);
      expect(names(await page({ merchantId: 1 }))).toEqual(['m1', 'w10', 'ann', 'late', 'purchase', 'annUpdated', 'm1Renamed', 'cara', 'caraUpdated']);
    });

    it('bounds by created_at: `from` inclusive, `to` exclusive, combined with a cursor', async () => {
      const window = { createdFrom: T_BACK, createdBefore: '2026-03-06T00:00:00.000Z' };
      expect(names(await page({ merchantId: 1 }, window))).toEqual(['purchase', 'annUpdated', 'm1Renamed', 'cara', 'caraUpdated']);
      expect(names(await page({ merchantId: 1 }, { createdBefore: T_BACK }))).toEqual(['m1', 'w10', 'ann']);
      expect(names(await page({ merchantId: 1 }, { createdFrom: '2026-03-06T00:00:00.000Z' }))).toEqual([]);
      // A cursor before `from` does not widen the window; one inside it narrows it.
      const early = { at: T0, _id: entryId(EVERY_EVENT, e.m1.position) };
      expect(names(await page({ merchantId: 1 }, { ...window, after: early }))).toEqual(['purchase', 'annUpdated', 'm1Renamed', 'cara', 'caraUpdated']);
      const inside = { at: T1, _id: entryId(EVERY_EVENT, e.m1Renamed.position) };
      expect(names(await page({ merchantId: 1 }, { ...window, after: inside }))).toEqual(['cara', 'caraUpdated']);
      expect(names(await all({ merchantId: 1 }, 2, window))).toEqual(['purchase', 'annUpdated', 'm1Renamed', 'cara', 'caraUpdated']);
    });

    it('filters by one type, or several merged in order, each bounded by the page', async () => {
      expect(names(await page({ merchantId: 1, types: ['CustomerRegistered'] }))).toEqual(['ann', 'cara']);
      const several = { merchantId: 1, types: ['MerchantRenamed', 'CustomerUpdated', 'PurchaseRecorded'] };
      expect(names(await page(several))).toEqual(['purchase', 'annUpdated', 'm1Renamed', 'caraUpdated']);
      expect(names(await page(several, { limit: 1 }))).toEqual(['purchase', 'annUpdated']);
      for (const limit of [1, 2, 3]) expect(names(await all(several, limit))).toEqual(['purchase', 'annUpdated', 'm1Renamed', 'caraUpdated']);
      expect(await page({ merchantId: 1, types: ['NoSuchType'] })).toEqual([]);
      expect(names(await page({ merchantId: 1, types: [] }))).toHaveLength(8);
      expect(names(await page({ merchantId: 1, entity: 'customer:100', types: ['CustomerUpdated', 'PurchaseRecorded'] }))).toEqual(['purchase', 'annUpdated']);
    });

    it('filters by stream, alone or with an entity, types and a cursor', async () => {
      expect(names(await page({ merchantId: 1, stream: 'merchant-1' }))).toEqual(['m1', 'm1Renamed']);
      expect(names(await page({ merchantId: 1, stream: 'merchant-1', types: ['MerchantRenamed'] }))).toEqual(['m1Renamed']);
      expect(names(await page({ merchantId: 1, stream: 'customer-1-cara', types: ['CustomerUpdated', 'CustomerRegistered'] }))).toEqual([
        'cara',
        'caraUpdated',
      ]);
      expect(names(await all({ merchantId: 1, stream: 'customer-1-cara' }, 1))).toEqual(['cara', 'caraUpdated']);
      expect(names(await page({ merchantId: 1, entity: 'customer:100', stream: 'purchase-1-x' }))).toEqual(['purchase']);
      expect(names(await page({ merchantId: 1, entity: 'widget:10', stream: 'customer-1-ann' }))).toEqual([]);
      expect(await page({ merchantId: 1, stream: 'no-such-stream' })).toEqual([]);
    });

    it('lists the history of an entity: id fields at any depth and the aggregate a stream is named after', async () => {
      const customer = await page({ merchantId: 1, entity: 'customer:100' });
      expect(names(customer)).toEqual(['ann', 'purchase', 'annUpdated']);
      expect(customer.map((c) => c._id)).toEqual(['ann', 'purchase', 'annUpdated'].map((n) => entryId('customer:100', e[n].position)));
      expect(customer.every((c) => c.entity === 'customer:100' && c.merchant_id === 1)).toBe(true);
      expect(names(await page({ merchantId: 1, entity: 'widget:10' }))).toEqual(['w10', 'purchase']);
      expect(names(await page({ merchantId: 1, entity: 'share:7' }))).toEqual(['purchase']);
      expect(names(await page({ merchantId: 1, entity: 'merchant:1' }))).toEqual(['m1', 'm1Renamed']);
      expect(await h.index.exists(1, 'customer:100')).toBe(true);
      expect(await h.index.exists(1, 'purchase:5')).toBe(true);
      expect(await h.index.exists(1, 'customer:999')).toBe(false);
    });

    it("isolates merchants: no filter reaches another merchant's entries", async () => {
      expect(names(await page({ merchantId: 2 }))).toEqual(['m2', 'bob']);
      expect(await page({ merchantId: 2, entity: 'customer:100' })).toEqual([]);
      expect(await page({ merchantId: 2, stream: 'merchant-1' })).toEqual([]);
      expect(await page({ merchantId: 2, types: ['MerchantRenamed'] })).toEqual([]);
      expect(await h.index.exists(2, 'customer:100')).toBe(false);
      expect(await h.index.exists(1, 'customer:200')).toBe(false);
      expect(await h.index.exists(2, 'customer:200')).toBe(true);
      expect(await page({ merchantId: 3 })).toEqual([]);
    });

    it('indexes no event of no merchant, nor one whose metadata and data name different merchants', async () => {
      for (const merchantId of [1, 2]) {
        const listed = names(await page({ merchantId }));
        expect(listed).not.toContain('chore');
        expect(listed).not.toContain('odd');
        expect(await page({ merchantId, stream: 'housekeeping' })).toEqual([]);
        expect(await page({ merchantId, stream: 'customer-1-odd' })).toEqual([]);
        expect(await h.index.exists(merchantId, 'customer:300')).toBe(false);
      }
    });
  });
}
