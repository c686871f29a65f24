import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { EventStoreDbLeaseStore } from '../../src/platform/instance/eventstoredb-lease-store.js';
import { MemoryLeaseStore } from '../../src/platform/instance/memory-lease-store.js';
import { MongoLeaseStore } from '../../src/platform/instance/mongo-lease-store.js';
import { leaseStoreContract } from './lease-store.contract.js';

leaseStoreContract('in-memory', async () => {
  const store = new MemoryLeaseStore();
  return { open: async () => store, dispose: async () => undefined };
});

const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  // A fresh database per test keeps runs independent on a shared server.
  leaseStoreContract('MongoDB', async () => {
    const database = `contract_lease_${randomUUID().slice(0, 8)}`;
    return {
      open: () => MongoLeaseStore.connect(mongoUrl, database),
      dispose: async () => {
        const client = await MongoClient.connect(mongoUrl);
        await client.db(database).dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('LeaseStore contract: MongoDB', () => {
    it.skip('skipped: set MONGO_URL to run the contract against MongoDB', () => undefined);
  });
}

const eventStoreUrl = process.env.EVENTSTORE_URL;
if (eventStoreUrl) {
  // Each test gets its own namespace on the shared server, so runs never collide.
  leaseStoreContract('EventStoreDB', async () => {
    const namespace = `contract-${randomUUID().slice(0, 8)}-`;
    return { open: async () => EventStoreDbLeaseStore.connect(eventStoreUrl, namespace), dispose: async () => undefined };
  });
} else {
  describe('LeaseStore contract: EventStoreDB', () => {
    it.skip('skipped: set EVENTSTORE_URL to run the contract against EventStoreDB', () => undefined);
  });
}
