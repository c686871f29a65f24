/**
 * The storage lease in EventStoreDB (when MONGO_URL is not set): the stream
 * `<namespace>instance-lease`, outside the service's own streams (storage.ts lists it among the
 * foreign ones). Its last event is the lease; every change appends with the expected revision
 * of the event it read, so of two instances racing for it one append fails and that one is
 * refused. The stream keeps its last few events only (maxCount). Checked against
 * node_modules/@eventstore/db-client 6.2.1 typings (readStream BACKWARDS from END, appendToStream
 * expectedRevision, WrongExpectedVersionError, StreamNotFoundError, setStreamMetadata maxCount).
 */
import {
  BACKWARDS,
  END,
  type EventStoreDBClient,
  jsonEvent,
  NO_STREAM,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
} from '@eventstore/db-client';
import { acquireClient } from '../event-store/eventstoredb-clients.js';
import { AcquireOutcome, Lease, leaseFrom, leaseRecord, type LeaseRecord, LeaseStore } from './lease-store.js';

/** After the namespace; storage.ts keeps the live store from reading it as one of its streams. */
export const LEASE_STREAM = 'instance-lease';
const TAKEN = 'InstanceLeaseHeld';
const RELEASED = 'InstanceLeaseReleased';

type LeaseData = LeaseRecord<string>;

export class EventStoreDbLeaseStore implements LeaseStore {
  /** The revision of the stream's last event as this instance wrote or read it. */
  private revision: AppendExpectedRevision = NO_STREAM;

  private constructor(
    private readonly client: EventStoreDBClient,
    private readonly stream: string,
    private readonly releaseClient: () => Promise<void>,
  ) {}

  /** On the process's one client for this server (eventstoredb-clients.ts), shared with the event store. */
  static connect(connectionString: string, namespace: string): EventStoreDbLeaseStore {
    const shared = acquireClient(connectionString);
    return new EventStoreDbLeaseStore(shared.client, `${namespace}${LEASE_STREAM}`, shared.release);
  }

  async acquire(lease: Lease, now: Date): Promise<AcquireOutcome> {
    const current = await this.read();
    if (current.lease && current.lease.instanceId !== lease.instanceId && current.lease.expiresAt.getTime() > now.getTime()) {
      return { acquired: false, holder: current.lease };
    }
    // Set before the stream's first event, so that a failure here leaves no lease behind.
    if (current.revision === NO_STREAM) await this.client.setStreamMetadata(this.stream, { maxCount: 10 });
    if (!(await this.write(TAKEN, lease, current.revision))) return { acquired: false, holder: (await this.read()).lease };
    return { acquired: true };
  }

  async renew(lease: Lease): Promise<boolean> {
    return this.write(TAKEN, lease, this.revision);
  }

  async release(instanceId: string): Promise<void> {
    const current = await this.read();
    if (current.lease?.instanceId !== instanceId) return;
    await this.write(RELEASED, current.lease, current.revision);
  }

  async holder(): Promise<Lease | undefined> {
    return (await this.read()).lease;
  }

  async close(): Promise<void> {
    await this.releaseClient();
  }

  /** The last event of the stream: the lease (none if released) and the revision to append after. */
  private async read(): Promise<{ lease: Lease | undefined; revision: AppendExpectedRevision }> {
    try {
      for await (const resolved of this.client.readStream(this.stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true })) {
        const event = resolved.event;
        if (!event) continue;
        return { lease: event.type === TAKEN ? leaseFrom(event.data as LeaseData) : undefined, revision: event.revision };
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return { lease: undefined, revision: NO_STREAM };
  }

  /** Appends after `expected`; false when the stream moved on meanwhile (another instance wrote). */
  private async write(type: string, lease: Lease, expected: AppendExpectedRevision): Promise<boolean> {
    try {
      const result = await this.client.appendToStream(this.stream, jsonEvent({ type, data: leaseRecord(lease, (at) => at.toISOString()) }), {
        expectedRevision: expected,
      });
      this.revision = result.nextExpectedRevision;
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return false;
      throw error;
    }
  }
}
