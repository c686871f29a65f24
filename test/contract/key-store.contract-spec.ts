import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { MongoKeyStore } from '../../src/platform/personal-data/mongo-key-store.js';
import { SqliteKeyStore } from '../../src/platform/personal-data/sqlite-key-store.js';
import { keyStoreContract } from './key-store.contract.js';

keyStoreContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'key-store-'));
  return { open: async () => new SqliteKeyStore(join(dir, 'events.sqlite-keys')), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
});

const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  // A fresh database per test keeps runs independent on a shared server.
  keyStoreContract('MongoDB', async () => {
    const database = `contract_keys_${randomUUID().slice(0, 8)}`;
    return {
      open: () => MongoKeyStore.connect(mongoUrl, database),
      dispose: async () => {
        const client = await MongoClient.connect(mongoUrl);
        await client.db(database).dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('KeyStore contract: MongoDB', () => {
    it.skip('skipped: set MONGO_URL to run the contract against MongoDB', () => undefined);
  });
}
