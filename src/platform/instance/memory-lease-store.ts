/** A LeaseStore in memory: the contract's reference adapter, and the one the keeper's specs use. */
import { AcquireOutcome, Lease, LeaseStore } from './lease-store.js';

export class MemoryLeaseStore implements LeaseStore {
  private lease: Lease | undefined;

  async acquire(lease: Lease, now: Date): Promise<AcquireOutcome> {
    const held = this.lease;
    if (held && held.instanceId !== lease.instanceId && held.expiresAt.getTime() > now.getTime()) return { acquired: false, holder: copy(held) };
    this.lease = copy(lease);
    return { acquired: true };
  }

  async renew(lease: Lease): Promise<boolean> {
    if (this.lease?.instanceId !== lease.instanceId) return false;
    this.lease = copy(lease);
    return true;
  }

  async release(instanceId: string): Promise<void> {
    if (this.lease?.instanceId === instanceId) this.lease = undefined;
  }

  async holder(): Promise<Lease | undefined> {
    return this.lease && copy(this.lease);
  }

  async close(): Promise<void> {}
}

function copy(lease: Lease): Lease {
  return { ...lease, startedAt: new Date(lease.startedAt), expiresAt: new Date(lease.expiresAt) };
}
