/**
 * MongoDB read models: the ReadStore port on one MongoDB database through the official driver
 * (mongodb 7). This module and its siblings (mongo-collection.ts, mongo-documents.ts,
 * mongo-errors.ts) own every import of the driver but the storage lease's; the notes on which
 * driver and manual behaviour they rely on are in docs/architecture.md.
 */
import { type Collection, type Db, MongoClient } from 'mongodb';
import { CollectionDef, positionKey, ReadCollection, ReadDoc, ReadStore } from './read-store.js';
import { reaching, isDuplicateKey } from './mongo-errors.js';
import { StoredDoc } from './mongo-documents.js';
import { PutForm, MongoCollection } from './mongo-collection.js';

const CHECKPOINTS = 'checkpoints';

interface CheckpointDoc {
  _id: string;
  position: string;
}

export interface MongoReadStoreOptions {
  /** Drop the whole database in close() (tests use a throw-away database). */
  dropOnClose?: boolean;
  /** The form puts start with (PutForm): 'pipeline' by default; tests run the portable one on MongoDB too. */
  putForm?: PutForm;
}

export class MongoReadStore implements ReadStore {
  readonly durable = true;
  private readonly collections = new Map<string, MongoCollection<ReadDoc>>();
  private closed = false;
  private applied: (() => bigint) | undefined;
  private readonly form: { put: PutForm };

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly options: MongoReadStoreOptions,
  ) {
    this.form = { put: options.putForm ?? 'pipeline' };
  }

  static async connect(url: string, dbName: string, options: MongoReadStoreOptions = {}): Promise<MongoReadStore> {
    // ignoreUndefined: a field set to undefined is left out, as JSON and the embedded store leave it
    // (by default the driver stores it as null, and the document read back would differ).
    const client = await MongoClient.connect(url, { ignoreUndefined: true });
    return new MongoReadStore(client, client.db(dbName), options);
  }

  collection<T extends ReadDoc = ReadDoc>(def: CollectionDef): ReadCollection<T> {
    if (def.name === CHECKPOINTS) throw new Error(`collection name '${CHECKPOINTS}' is reserved for checkpoints`);
    let collection = this.collections.get(def.name);
    if (!collection) {
      collection = new MongoCollection(this.db.collection<StoredDoc>(def.name), def, () => this.applied, this.form);
      this.collections.set(def.name, collection);
    }
    return collection as unknown as ReadCollection<T>;
  }

  /** The form puts take on this server (PutForm): 'pipeline' until the server refuses one. */
  get putForm(): PutForm {
    return this.form.put;
  }

  trackApplied(applied: () => bigint): void {
    this.applied = applied;
  }

  async getCheckpoint(name: string): Promise<bigint | undefined> {
    const doc = await reaching(() => this.checkpoints().findOne({ _id: name }));
    return doc ? BigInt(doc.position) : undefined;
  }

  async setCheckpoint(name: string, position: bigint): Promise<void> {
    // Never backwards: only over a lower position; an upsert that finds a higher one fails on _id, which is that answer.
    const key = positionKey(position);
    try {
      await reaching(() => this.checkpoints().updateOne({ _id: name, position: { $lt: key } }, { $set: { position: key } }, { upsert: true }));
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  async clear(): Promise<void> {
    const collections = await this.db.collections();
    try {
      await Promise.all(collections.filter((c) => !c.collectionName.startsWith('system.')).map((c) => c.drop()));
    } finally {
      // Also when one drop failed: the others may have dropped their collections and indexes.
      for (const collection of this.collections.values()) collection.reset();
    }
  }

  async ping(): Promise<void> {
    await this.client.db('admin').command({ ping: 1 });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.options.dropOnClose) await this.db.dropDatabase();
    } finally {
      await this.client.close();
    }
  }

  private checkpoints(): Collection<CheckpointDoc> {
    return this.db.collection<CheckpointDoc>(CHECKPOINTS);
  }
}

export { escapeRegex, restored, storable } from './mongo-documents.js';
export { unavailableOr } from './mongo-errors.js';
export type { PutForm } from './mongo-collection.js';
