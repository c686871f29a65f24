import { randomUUID } from 'node:crypto';
import { MemoryReadStore } from '../../src/platform/read-store/memory-read-store.js';
import { MongoReadStore } from '../../src/platform/read-store/mongo-read-store.js';
import { readStoreContract } from './read-store.contract.js';

readStoreContract('in-memory (embedded)', async () => new MemoryReadStore());

const url = process.env.MONGO_URL;
if (url) {
  // A fresh database per test keeps runs independent on a shared server.
  readStoreContract('MongoDB', async () => MongoReadStore.connect(url, `contract_${randomUUID().slice(0, 8)}`, { dropOnClose: true }), { tracksApplied: true });
} else {
  describe('ReadStore contract: MongoDB', () => {
    it.skip('skipped: set MONGO_URL to run the contract against MongoDB', () => undefined);
  });
}
