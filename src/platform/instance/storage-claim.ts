/**
 * One instance per store until several are supported: embedded mode locks DATA_DIR (its SQLite
 * log and the sandbox's files under it), server mode holds a lease in MongoDB or EventStoreDB,
 * and with MONGO_URL beside an embedded log both are taken. Taken before anything is written
 * (createApp), released after the stores close.
 */
import { Clock } from '../clock.js';
import { Config } from '../config.js';
import { createLeaseStore } from '../storage.js';
import { DataDirLock } from './data-dir-lock.js';
import { thisInstance } from './instance-identity.js';
import { InstanceLease } from './instance-lease.js';

export interface StorageClaim {
  /** Records the port the server listens on, for a refused start's message. */
  listening(port: number): void;
  release(): Promise<void>;
}

export async function claimStorage(config: Config, clock: Clock, onLost: (reason: string) => void): Promise<StorageClaim> {
  const me = thisInstance(clock.now());
  const lock = config.eventStoreUrl ? undefined : DataDirLock.acquire(config.dataDir, me);
  let lease: InstanceLease | undefined;
  try {
    const leaseStore = await createLeaseStore(config);
    if (leaseStore) {
      lease = await InstanceLease.take(leaseStore.store, me, { what: leaseStore.what, ttlMs: config.instanceLeaseTtlMs, renewMs: config.instanceLeaseRenewMs, clock, onLost });
    }
  } catch (error) {
    lock?.release();
    throw error;
  }
  return {
    listening(port) {
      lock?.listening(port);
      lease?.listening(port);
    },
    async release() {
      try {
        await lease?.release();
      } finally {
        lock?.release();
      }
    },
  };
}
