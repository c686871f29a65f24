/**
 * The storage lease in MongoDB: one document (`_id: "service"`) in the `instance_lease`
 * collection of the service's database. Taken with an upsert filtered on "expired or mine": when
 * another instance's unexpired lease is there, the filter matches nothing and the upsert's insert
 * fails on the `_id` (duplicate key), which is the refusal, also when two starts race.
 * Checked against node_modules/mongodb/mongodb.d.ts 7.9.0 (Collection.updateOne with upsert,
 * UpdateResult.matchedCount, deleteOne, findOne, MongoServerError.code).
 */
import { type Collection, MongoClient, MongoServerError } from 'mongodb';
import { AcquireOutcome, Lease, leaseFrom, leaseRecord, type LeaseRecord, LeaseStore } from './lease-store.js';

export const LEASE_COLLECTION = 'instance_lease';
const LEASE_ID = 'service';
const DUPLICATE_KEY = 11000;

interface LeaseDoc extends LeaseRecord<Date> {
  _id: string;
}

export class MongoLeaseStore implements LeaseStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly leases: Collection<LeaseDoc>,
  ) {}

  static async connect(url: string, database: string): Promise<MongoLeaseStore> {
    const client = await MongoClient.connect(url);
    return new MongoLeaseStore(client, client.db(database).collection<LeaseDoc>(LEASE_COLLECTION));
  }

  async acquire(lease: Lease, now: Date): Promise<AcquireOutcome> {
    try {
      await this.leases.updateOne(
        { _id: LEASE_ID, $or: [{ expires_at: { $lte: now } }, { instance_id: lease.instanceId }] },
        { $set: leaseRecord(lease, (at) => at) },
        { upsert: true },
      );
      return { acquired: true };
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return { acquired: false, holder: await this.holder() };
      throw error;
    }
  }

  async renew(lease: Lease): Promise<boolean> {
    const result = await this.leases.updateOne(
      { _id: LEASE_ID, instance_id: lease.instanceId },
      { $set: { expires_at: lease.expiresAt, port: lease.port ?? null } },
    );
    return result.matchedCount === 1;
  }

  async release(instanceId: string): Promise<void> {
    await this.leases.deleteOne({ _id: LEASE_ID, instance_id: instanceId });
  }

  async holder(): Promise<Lease | undefined> {
    const doc = await this.leases.findOne({ _id: LEASE_ID });
    return doc ? leaseFrom(doc) : undefined;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
