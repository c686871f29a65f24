/**
 * A v2 cursor never skips a record created while a client pages (docs/api-decisions.md, "Lists and
 * paging"). A record's created_at is taken when its request starts, and its write may wait its turn
 * (a purchase waits for its advocate's reward ledger), so it can be recorded after a page whose last
 * record it precedes. The clock stands in for that wait here: set back, it makes a purchase that is
 * recorded after the page, in the list's order before the page's cursor.
 */
import { ManualClock } from '../../src/platform/clock.js';
import { Service, createMerchant } from '../support/service.js';

describe('v2 paging while records are created', () => {
  it('shows a record recorded after a page, placed before its cursor, on the next page, and nothing twice', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    const service = await Service.start({ clock });
    try {
      const m = await createMerchant(service);
      const buy = async (orderId: string) => expect((await service.post('/v2/purchases', { order_id: orderId }, { auth: m.bearer })).status).toBe(201);
      clock.set(new Date('2026-03-01T10:00:01.000Z'));
      await buy('A');
      clock.set(new Date('2026-03-01T10:00:03.000Z'));
      await buy('C');
      const first = (await service.get('/v2/purchases?limit=1', { auth: m.bearer })).body;
      expect(first.results.map((p: { order_id: string }) => p.order_id)).toEqual(['A']);
      // Created at 10:00:00.5 (before A, the cursor's record) and at 10:00:02, both recorded now.
      clock.set(new Date('2026-03-01T10:00:00.500Z'));
      await buy('EARLY');
      clock.set(new Date('2026-03-01T10:00:02.000Z'));
      await buy('B');
      const seen: string[] = [...first.results.map((p: { order_id: string }) => p.order_id)];
      for (let next: string | null = first.next_page; next !== null;) {
        const page = (await service.get(next.slice(service.url.length), { auth: m.bearer })).body;
        seen.push(...page.results.map((p: { order_id: string }) => p.order_id));
        next = page.next_page;
      }
      expect(seen).toEqual(['A', 'EARLY', 'B', 'C']);
      // The list itself keeps (created_at, id) order.
      const all = (await service.get('/v2/purchases', { auth: m.bearer })).body.results.map((p: { order_id: string }) => p.order_id);
      expect(all).toEqual(['EARLY', 'A', 'B', 'C']);
    } finally {
      await service.stop();
    }
  });
});
