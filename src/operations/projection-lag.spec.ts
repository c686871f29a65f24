/**
 * The lag on EventStoreDB is measured from this namespace's own events: the head and the pending
 * events come from reads the server filters, so other namespaces' traffic is never read here.
 */
import { ManualClock } from '../platform/clock.js';
import { EventStoreDbEventStore } from '../platform/event-store/eventstoredb-event-store.js';
import { ProjectionLag } from './projection-lag.js';

interface LogEvent {
  streamId: string;
  position: { commit: bigint; prepare: bigint };
  created: Date;
}

/** readAll as a server answers it (from a position, either direction, filtered by stream-name prefix when asked), counting the events sent. */
function fakeClient(log: LogEvent[]) {
  const client = {
    sent: 0,
    readAll(options: { direction: string; fromPosition: unknown; maxCount: number; filter?: { prefixes?: string[] } }) {
      const at = typeof options.fromPosition === 'object' ? (options.fromPosition as { commit: bigint }).commit : undefined;
      const ordered = options.direction === 'backwards' ? [...log].reverse() : log;
      const events = ordered
        .filter((e) => at === undefined || (options.direction === 'backwards' ? e.position.commit < at : e.position.commit >= at))
        .filter((e) => options.filter?.prefixes === undefined || options.filter.prefixes.some((p) => e.streamId.startsWith(p)))
        .slice(0, options.maxCount);
      return {
        async *[Symbol.asyncIterator]() {
          for (const e of events) {
            client.sent += 1;
            yield { event: { ...e, id: `id-${e.position.commit}`, type: 'T', data: {}, metadata: {}, isJson: true, revision: 0n } };
          }
        },
        async cancel() {},
      };
    },
  };
  return client;
}

describe('ProjectionLag on EventStoreDB', () => {
  it("counts and ages only its namespace's pending events, however much other namespaces write", async () => {
    const log: LogEvent[] = [];
    let at = 0n;
    const push = (streamId: string, n: number) => {
      for (let i = 0; i < n; i += 1) {
        at += 10n;
        log.push({ streamId, position: { commit: at, prepare: at }, created: new Date(Date.UTC(2026, 0, 1, 0, 0, Number(at / 10n))) });
      }
    };
    push('shop-merchant-1', 1);
    const processed = (1n << 64n) * 10n + 10n;
    push('other-app-x', 30_000);
    push('shop-merchant-1', 3);
    const firstPending = log[30_001];
    push('other-app-x', 10_000);
    const client = fakeClient(log);
    const store = EventStoreDbEventStore.withClient(client as never, { namespace: 'shop-' });
    const clock = new ManualClock(new Date(firstPending.created.getTime() + 42_000));
    const lag = new ProjectionLag(store, clock, { processed } as never, { gauge: () => undefined } as never);
    const measured = await lag.measure(100);
    expect(measured).toMatchObject({ events: 3, capped: false, seconds: 42 });
    // The end of $all, the head (one of ours), the applied one the read starts at, and the three pending: none of the 40,000 others.
    expect(client.sent).toBe(6);
  });
});
