/**
 * Server mode: takes the storage lease at start-up (or refuses the start, naming the holder and
 * when its lease ends) and renews it every `renewMs`. A lease that lapses (renewals failing until
 * its expiry, or the record taken by another instance) means another instance may be writing:
 * `onLost` is called once, and main stops the process rather than serve without it.
 */
import { Logger } from '@nestjs/common';
import { Clock } from '../clock.js';
import { describeHolder, InstanceIdentity, NOT_SUPPORTED_YET, StorageInUseError } from './instance-identity.js';
import { Lease, LeaseStore } from './lease-store.js';

export interface InstanceLeaseOptions {
  /** What the lease guards, for the messages ("MongoDB database referral"). */
  what: string;
  ttlMs: number;
  renewMs: number;
  clock: Clock;
  onLost: (reason: string) => void;
}

export class InstanceLease {
  private readonly logger = new Logger('InstanceLease');
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private stopped = false;

  private constructor(
    private readonly store: LeaseStore,
    private readonly lease: Lease,
    private readonly options: InstanceLeaseOptions,
  ) {}

  /** Takes the lease for `me`, or throws StorageInUseError; closes `store` when refused. */
  static async take(store: LeaseStore, me: InstanceIdentity, options: InstanceLeaseOptions): Promise<InstanceLease> {
    const now = options.clock.now();
    const lease: Lease = { ...me, expiresAt: new Date(now.getTime() + options.ttlMs) };
    let outcome;
    try {
      outcome = await store.acquire(lease, now);
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    if (!outcome.acquired) {
      await store.close().catch(() => undefined);
      const until = outcome.holder ? `; its lease ends at ${outcome.holder.expiresAt.toISOString()} unless it renews it` : '';
      throw new StorageInUseError(
        `refusing to start: ${describeHolder(outcome.holder)} holds the lease on ${options.what}${until}; stop it first: ${NOT_SUPPORTED_YET}`,
      );
    }
    const held = new InstanceLease(store, lease, options);
    held.schedule();
    return held;
  }

  /** Until when the lease is held, as last written. */
  get expiresAt(): Date {
    return new Date(this.lease.expiresAt);
  }

  /** The port goes into the record with the next renewal. */
  listening(port: number): void {
    this.lease.port = port;
  }

  /** One renewal now (the timer calls it every `renewMs`). */
  renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  /** Stops renewing, ends the lease so that the next instance need not wait for its expiry, and closes the store. */
  async release(): Promise<void> {
    if (this.stopped) return;
    this.stop();
    await this.renewing;
    try {
      await this.store.release(this.lease.instanceId);
    } catch (error) {
      this.logger.warn(`could not end the lease on ${this.options.what} (it expires at ${this.lease.expiresAt.toISOString()}): ${(error as Error).message}`);
    } finally {
      await this.store.close();
    }
  }

  /** The next renewal, and no later than the expiry: failing renewals are found lost when the lease ends, not a tick after. */
  private schedule(): void {
    if (this.stopped) return;
    const untilExpiry = this.lease.expiresAt.getTime() - this.options.clock.now().getTime();
    this.timer = setTimeout(() => void this.renew().then(() => this.schedule()), Math.max(0, Math.min(this.options.renewMs, untilExpiry)));
    this.timer.unref();
  }

  private async renewOnce(): Promise<void> {
    if (this.stopped) return;
    const now = this.options.clock.now();
    // A lease past its expiry may have been taken and used by another instance meanwhile.
    if (now.getTime() >= this.lease.expiresAt.getTime())
      return this.lost(`the lease on ${this.options.what} expired at ${this.lease.expiresAt.toISOString()} before it could be renewed`);
    const next: Lease = { ...this.lease, expiresAt: new Date(now.getTime() + this.options.ttlMs) };
    let kept: boolean;
    try {
      kept = await this.store.renew(next);
    } catch (error) {
      this.logger.warn(`renewing the lease on ${this.options.what} failed (held until ${this.lease.expiresAt.toISOString()}): ${(error as Error).message}`);
      return;
    }
    if (this.stopped) return;
    if (!kept) return this.lost(`the lease on ${this.options.what} is no longer this instance's`);
    this.lease.expiresAt = next.expiresAt;
  }

  private lost(reason: string): void {
    if (this.stopped) return;
    this.stop();
    void this.store.close().catch(() => undefined);
    this.options.onLost(reason);
  }

  private stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
