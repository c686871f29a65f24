/**
 * Server mode: the port of the storage lease. One record says which instance holds the shared
 * servers (EventStoreDB namespace, MongoDB database) and until when; it is taken only when
 * absent, expired or already this instance's, and kept by renewing it (instance-lease.ts).
 * Adapters: MongoDB, EventStoreDB, and an in-memory one (test/contract/lease-store.contract.ts).
 */
import { InstanceIdentity } from './instance-identity.js';

export interface Lease extends InstanceIdentity {
  expiresAt: Date;
}

export type AcquireOutcome = { acquired: true } | { acquired: false; holder: Lease | undefined };

export interface LeaseStore {
  /** Records `lease` if no lease is held, the held one expired before `now`, or it is `lease.instanceId`'s; else names the holder. */
  acquire(lease: Lease, now: Date): Promise<AcquireOutcome>;
  /** Writes `lease`'s new expiry (and port) if the record is still its instance's; false when it is not. */
  renew(lease: Lease): Promise<boolean>;
  /** Ends the instance's lease at once, so that the next acquire succeeds; nothing when it no longer holds it. */
  release(instanceId: string): Promise<void>;
  /** The lease held, if any (an expired one too). */
  holder(): Promise<Lease | undefined>;
  close(): Promise<void>;
}

/** A lease as both servers store it (snake_case); times as Dates in MongoDB, ISO strings in EventStoreDB. */
export type LeaseRecord<Time> = {
  instance_id: string;
  host: string;
  pid: number;
  port: number | null;
  started_at: Time;
  expires_at: Time;
};

export function leaseRecord<Time>(lease: Lease, time: (at: Date) => Time): LeaseRecord<Time> {
  return {
    instance_id: lease.instanceId,
    host: lease.host,
    pid: lease.pid,
    port: lease.port ?? null,
    started_at: time(lease.startedAt),
    expires_at: time(lease.expiresAt),
  };
}

export function leaseFrom(record: LeaseRecord<Date | string>): Lease {
  return {
    instanceId: record.instance_id,
    host: record.host,
    pid: record.pid,
    port: record.port ?? undefined,
    startedAt: new Date(record.started_at),
    expiresAt: new Date(record.expires_at),
  };
}
