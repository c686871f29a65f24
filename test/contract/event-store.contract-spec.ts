import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store.js';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store.js';
import { eventStoreContract } from './event-store.contract.js';

eventStoreContract('SQLite (embedded)', async () => new SqliteEventStore({ path: ':memory:' }));

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
