import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MemoryReadStore } from '../../src/platform/read-store/memory-read-store.js';
import { MongoReadStore } from '../../src/platform/read-store/mongo-read-store.js';
import { readStoreContract } from './read-store.contract.js';

/** The FerretDB version behind `url` (its buildInfo says), or undefined for another server. */
async function ferretdbVersion(url: string): Promise<string | undefined> {
  const client = await MongoClient.connect(url);
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    return typeof info.ferretdbVersion === 'string' ? info.ferretdbVersion : undefined;
  } finally {
    await client.close();
  }
}

readStoreContract('in-memory (embedded)', async () => new MemoryReadStore());

const url = process.env.MONGO_URL;
if (url) {
  // A fresh database per test keeps runs independent on a shared server.
  const ferretdb = await ferretdbVersion(url);
  // One test too slow for CI on FerretDB 1.x with SQLite; the rest of the contract runs there.
  const largeWalkSkipped = ferretdb === undefined ? undefined : `FerretDB ${ferretdb} on SQLite runs this 2,500-document walk for minutes`;
  readStoreContract(
    ferretdb === undefined ? 'MongoDB' : `MongoDB protocol (FerretDB ${ferretdb})`,
    async () => MongoReadStore.connect(url, `contract_${randomUUID().slice(0, 8)}`, { dropOnClose: true }),
    { tracksApplied: true, largeWalkSkipped },
  );
  // FerretDB takes the portable puts only (the run above); on MongoDB they are run too, as servers without pipeline updates use them.
  if (ferretdb === undefined) {
    readStoreContract(
      'MongoDB, portable puts',
      async () => MongoReadStore.connect(url, `contract_${randomUUID().slice(0, 8)}`, { dropOnClose: true, putForm: 'portable' }),
      { tracksApplied: true },
    );
  }

  describe('MongoDB read store: a restart on the same database', () => {
    it('uses the collections and indexes an earlier store made there', async () => {
      const database = `contract_restart_${randomUUID().slice(0, 8)}`;
      const people = { name: 'restart_people', indexes: [['merchant']] };
      const first = await MongoReadStore.connect(url, database);
      await first.collection(people).put({ _id: 'a', created_at: '2026-01-01T00:00:00.000Z', merchant: 1 }, 1n);
      await first.close();
      const again = await MongoReadStore.connect(url, database, { dropOnClose: true });
      try {
        const collection = again.collection(people);
        expect(await collection.put({ _id: 'b', created_at: '2026-01-02T00:00:00.000Z', merchant: 1 }, 2n)).toBe(true);
        // A server without pipeline updates (FerretDB) has moved the store to the portable form; MongoDB keeps the pipeline.
        expect(again.putForm).toBe(ferretdb === undefined ? 'pipeline' : 'portable');
        expect((await collection.list({ where: { merchant: 1 }, limit: 10 })).map((doc) => doc._id)).toEqual(['a', 'b']);
      } finally {
        await again.close();
      }
    });
  });
} else {
  describe('ReadStore contract: MongoDB', () => {
    it.skip('skipped: set MONGO_URL to run the contract against MongoDB', () => undefined);
  });
}
