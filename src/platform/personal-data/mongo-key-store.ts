/**
 * The key store in MongoDB (server mode): a `subject_keys` collection, one document per subject
 * (`_id` its keyed hash), and the store's secret in `key_store_meta`. Keys are made with an
 * upsert that only inserts, so two processes asking at once for a new subject get the same key.
 */
import { Binary, Collection, MongoBulkWriteError, MongoClient, MongoServerError, WriteError } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { KeyStore, SubjectKey } from './key-store.js';
import { newKey } from './sqlite-key-store.js';

interface KeyDoc {
  _id: string;
  id: string;
  key: Binary;
}

interface MetaDoc {
  _id: string;
  value: Binary;
}

const DUPLICATE_KEY = 11000;

export class MongoKeyStore implements KeyStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly keys: Collection<KeyDoc>,
    private readonly meta: Collection<MetaDoc>,
    private readonly dropOnClose: boolean,
    private readonly fixedSecret: Buffer | undefined,
  ) {}

  /** `secret`: the one to keep when the store has none yet (random otherwise). */
  static async connect(url: string, database: string, options: { dropOnClose?: boolean; secret?: Buffer } = {}): Promise<MongoKeyStore> {
    const client = await MongoClient.connect(url);
    try {
      const db = client.db(database);
      const keys = db.collection<KeyDoc>('subject_keys');
      await keys.createIndex({ id: 1 }, { unique: true });
      return new MongoKeyStore(client, keys, db.collection<MetaDoc>('key_store_meta'), options.dropOnClose === true, options.secret);
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  async keysFor(subjects: readonly string[]): Promise<Map<string, SubjectKey>> {
    const wanted = [...new Set(subjects)];
    if (wanted.length === 0) return new Map();
    const out = new Map<string, SubjectKey>();
    // A batch that lost a race on some subject may leave others unwritten, and the winner's write
    // may not be visible yet (both seen on FerretDB, with two stores asking at once): those are
    // asked for again, a little later each time.
    for (let attempt = 0; attempt < 8 && out.size < wanted.length; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
      const left = wanted.filter((subject) => !out.has(subject));
      const operations = left.map((subject) => {
        const made = newKey();
        return { updateOne: { filter: { _id: subject }, update: { $setOnInsert: { id: made.id, key: new Binary(made.key) } }, upsert: true } };
      });
      await this.upsertAll(operations);
      for (const doc of await this.keys.find({ _id: { $in: left } }).toArray()) out.set(doc._id, { id: doc.id, key: Buffer.from(doc.key.buffer) });
    }
    if (out.size < wanted.length) throw new Error('the key store made no key for some subjects');
    return out;
  }

  /** Two upserts racing on one new `_id` may both insert; the loser's duplicate-key error means the key exists. */
  private async upsertAll(operations: Parameters<Collection<KeyDoc>['bulkWrite']>[0]): Promise<void> {
    try {
      await this.keys.bulkWrite(operations, { ordered: false });
    } catch (error) {
      const errors = error instanceof MongoBulkWriteError ? ([] as WriteError[]).concat(error.writeErrors) : [];
      const duplicates = errors.length > 0 && errors.every((e) => e.code === DUPLICATE_KEY);
      if (!duplicates) throw error;
    }
  }

  async keysById(ids: readonly string[]): Promise<Map<string, Buffer>> {
    if (ids.length === 0) return new Map();
    const docs = await this.keys.find({ id: { $in: [...new Set(ids)] } }).toArray();
    return new Map(docs.map((doc) => [doc.id, Buffer.from(doc.key.buffer)]));
  }

  async destroy(subjects: readonly string[]): Promise<number> {
    if (subjects.length === 0) return 0;
    const result = await this.keys.deleteMany({ _id: { $in: [...new Set(subjects)] } });
    return result.deletedCount;
  }

  async secret(): Promise<Buffer> {
    try {
      await this.meta.updateOne({ _id: 'secret' }, { $setOnInsert: { value: new Binary(this.fixedSecret ?? randomBytes(32)) } }, { upsert: true });
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
    }
    const doc = await this.meta.findOne({ _id: 'secret' });
    return Buffer.from(doc!.value.buffer);
  }

  async close(): Promise<void> {
    try {
      if (this.dropOnClose) await this.keys.db.dropDatabase().catch(() => undefined);
    } finally {
      await this.client.close();
    }
  }
}
