/** The read-model audit index reads each entry's event from the event store: one event per read, a few reads at a time. */
import { SqliteEventStore } from '../platform/event-store/sqlite-event-store.js';
import type { EventStore, ReadAllOptions, RecordedEvent } from '../platform/event-store/event-store.js';
import { replay } from '../platform/projections/projection-runner.js';
import { MemoryReadStore } from '../platform/read-store/memory-read-store.js';
import { auditProjections } from './audit-index.projection.js';
import { READS_AT_ONCE, ReadModelAuditIndex } from './read-model-audit-index.js';

describe('ReadModelAuditIndex reads of the event store', () => {
  it('reads one event per entry, at most READS_AT_ONCE at a time, for a page of 100', async () => {
    const events = new SqliteEventStore({ path: ':memory:' });
    for (let i = 0; i < 120; i += 1)
      await events.append(`widget-${i}`, [{ type: 'WidgetCreated', data: { widgetId: i, merchantId: 1 }, metadata: { merchantId: 1 } }], 'no_stream');
    const readStore = new MemoryReadStore();
    await replay(events, readStore, auditProjections);
    const reads: (number | undefined)[] = [];
    let running = 0;
    let most = 0;
    // Counts the reads, how many events each asks for, and how many run at once.
    const counting = new Proxy(events, {
      get(target, name, receiver) {
        if (name !== 'readAll') return Reflect.get(target, name, receiver);
        return async (options?: ReadAllOptions): Promise<RecordedEvent[]> => {
          reads.push(options?.maxCount);
          running += 1;
          most = Math.max(most, running);
          try {
            await new Promise((resolve) => setTimeout(resolve, 1));
            return await target.readAll(options);
          } finally {
            running -= 1;
          }
        };
      },
    }) as EventStore;
    try {
      const index = new ReadModelAuditIndex(readStore, counting);
      const page = await index.page({ merchantId: 1 }, { limit: 99 } as never);
      expect(page).toHaveLength(100);
      expect(page.map((entry) => (entry.data as { widgetId: number }).widgetId)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(reads).toEqual(Array.from({ length: 100 }, () => 1));
      expect(most).toBe(READS_AT_ONCE);
    } finally {
      await events.close();
    }
  });
});
