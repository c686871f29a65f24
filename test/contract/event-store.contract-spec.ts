import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store.js';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store.js';
import { eventStoreContract } from './event-store.contract.js';

eventStoreContract('SQLite (embedded)', async () => new SqliteEventStore({ path: ':memory:' }));

describe('SQLite subscription wake-ups', () => {
  it('delivers an event appended while the reader is busy without waiting for the poll', async () => {
    // With a one-minute poll, a missed wake-up would leave this test hanging until jest's timeout.
    const store = new SqliteEventStore({ path: ':memory:', pollMs: 60_000 });
    const subscription = store.subscribe();
    const seen: string[] = [];
    await store.append('s', [{ type: 'First', data: {} }], 'no_stream');
    for await (const event of subscription) {
      seen.push(event.type);
      // Append while the consumer is still handling the previous event.
      if (event.type === 'First') await store.append('s', [{ type: 'Second', data: {} }], 0);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['First', 'Second']);
    await store.close();
  });
});

const url = process.env.EVENTSTORE_URL;
if (url) {
  // Each test gets its own stream prefix on the shared server, so runs never collide.
  let prefix = '';
  eventStoreContract(
    'EventStoreDB',
    async () => {
      prefix = `contract-${randomUUID().slice(0, 8)}-`;
      return EventStoreDbEventStore.connect(url, { namespace: prefix });
    },
    () => '',
  );
} else {
  describe('EventStore contract: EventStoreDB', () => {
    it.skip('skipped: set EVENTSTORE_URL to run the contract against EventStoreDB', () => undefined);
  });
}
