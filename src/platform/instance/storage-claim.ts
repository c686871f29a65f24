/**
 * One instance per store until several are supported: embedded mode locks DATA_DIR (its SQLite
 * log and the sandbox's files under it), server mode holds a lease in each server it writes to
 * (EventStoreDB, MongoDB), and with MONGO_URL beside an embedded log the lock and a lease are
 * taken. Taken before anything is written (createApp), released after the stores close.
 */
import { Clock } from '../clock.js';
import { Config } from '../config.js';
import { createLeaseStores } from '../storage.js';
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
  const leases: InstanceLease[] = [];
  const release = async () => {
    try {
      await Promise.all(leases.map((lease) => lease.release()));
    } finally {
      lock?.release();
    }
  };
  try {
    const stores = await createLeaseStores(config);
    try {
      // One after the other: a refusal by the first leaves the second untouched.
      for (const { store, what } of stores) {
        leases.push(await InstanceLease.take(store, me, { what, ttlMs: config.instanceLeaseTtlMs, renewMs: config.instanceLeaseRenewMs, clock, onLost }));
      }
    } finally {
      // take() closes the store it was refused by; the ones never tried are closed here.
      await Promise.all(stores.slice(leases.length + 1).map(({ store }) => store.close()));
    }
  } catch (error) {
    await release();
    throw error;
  }
  return {
    listening(port) {
      lock?.listening(port);
      for (const lease of leases) lease.listening(port);
    },
    release,
  };
}
