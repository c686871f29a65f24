import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ManualClock } from '../clock.js';
import { eventually } from '../../../test/support/eventually.js';
import { thisInstance, StorageInUseError } from './instance-identity.js';
import { InstanceLease, InstanceLeaseOptions } from './instance-lease.js';
import { Lease } from './lease-store.js';
import { MemoryLeaseStore } from './memory-lease-store.js';

/** A memory store whose renewals can be made to fail, as a server that stopped answering. */
class FlakyLeaseStore extends MemoryLeaseStore {
  failing = false;
  renewals = 0;
  override async renew(lease: Lease): Promise<boolean> {
    this.renewals += 1;
    if (this.failing) throw new Error('server selection timed out');
    return super.renew(lease);
  }
}

describe('InstanceLease', () => {
  const held: InstanceLease[] = [];
  let warnings: string[] = [];
  beforeEach(() => {
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(held.splice(0).map((lease) => lease.release()));
  });

  function setup(renewMs = 60_000) {
    const clock = new ManualClock(new Date('2026-11-28T12:00:00.000Z'));
    const store = new FlakyLeaseStore();
    const lost: string[] = [];
    const options: InstanceLeaseOptions = { what: 'MongoDB database referral', ttlMs: 15_000, renewMs, clock, onLost: (reason) => lost.push(reason) };
    const take = async (port?: number) => {
      const lease = await InstanceLease.take(store, { ...thisInstance(clock.now()), port }, options);
      held.push(lease);
      return lease;
    };
    return { clock, store, lost, take };
  }

  it('refuses a second instance while the first holds the lease, naming it and when its lease ends', async () => {
    const { take, clock } = setup();
    await take(3000);
    clock.advance(14_000);
    const refused = await take().then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused).toBeInstanceOf(StorageInUseError);
    expect(refused?.message).toMatch(
      /^refusing to start: another app in this process \(pid \d+ on host .+, listening on :3000, since 2026-11-28T12:00:00\.000Z\) holds the lease on MongoDB database referral; its lease ends at 2026-11-28T12:00:15\.000Z unless it renews it; stop it first: several processes on one store are not supported yet$/,
    );
  });

  it('takes over a lease its holder stopped renewing once it has expired', async () => {
    const { take, clock, store } = setup();
    await take();
    clock.advance(15_000);
    const second = await take(4000);
    expect((await store.holder())?.port).toBe(4000);
    expect(second.expiresAt).toEqual(new Date('2026-11-28T12:00:30.000Z'));
  });

  it('renews the lease (with the port once listening), so that a later start is still refused', async () => {
    const { take, clock, store, lost } = setup();
    const first = await take();
    first.listening(3000);
    clock.advance(10_000);
    await first.renew();
    expect(await store.holder()).toMatchObject({ port: 3000, expiresAt: new Date('2026-11-28T12:00:25.000Z') });
    clock.advance(10_000);
    await expect(take()).rejects.toThrow(/listening on :3000.*lease ends at 2026-11-28T12:00:25\.000Z/);
    expect(lost).toEqual([]);
  });

  it('renews on its own timer', async () => {
    const { take, store, lost } = setup(10);
    await take();
    await eventually(async () => expect(store.renewals).toBeGreaterThanOrEqual(3));
    expect(lost).toEqual([]);
  });

  it('keeps the lease through a failed renewal, but reports it lost once renewals failed until its expiry', async () => {
    const { take, clock, store, lost } = setup();
    const first = await take();
    store.failing = true;
    clock.advance(5_000);
    await first.renew();
    expect(lost).toEqual([]);
    expect(warnings).toEqual(['renewing the lease on MongoDB database referral failed (held until 2026-11-28T12:00:15.000Z): server selection timed out']);
    clock.advance(10_000);
    await first.renew();
    expect(lost).toEqual(['the lease on MongoDB database referral expired at 2026-11-28T12:00:15.000Z before it could be renewed']);
    // Reported once: the keeper has stopped.
    await first.renew();
    expect(lost).toHaveLength(1);
  });

  it('finds failing renewals lost on its own timer when the lease runs out', async () => {
    const { take, clock, store, lost } = setup(10);
    await take();
    store.failing = true;
    await eventually(async () => expect(store.renewals).toBeGreaterThanOrEqual(2));
    expect(lost).toEqual([]);
    clock.advance(15_000);
    await eventually(async () => expect(lost).toHaveLength(1));
  });

  it('reports the lease lost when another instance holds the record', async () => {
    const { take, clock, store, lost } = setup();
    const first = await take();
    clock.advance(15_000);
    await store.acquire({ ...thisInstance(clock.now()), expiresAt: new Date(clock.now().getTime() + 15_000) }, clock.now());
    clock.set(new Date('2026-11-28T12:00:14.000Z'));
    await first.renew();
    expect(lost).toEqual(["the lease on MongoDB database referral is no longer this instance's"]);
  });

  it('ends the lease on release, so that the next instance starts without waiting for the expiry', async () => {
    const { take, store } = setup();
    const first = await take();
    await first.release();
    expect(await store.holder()).toBeUndefined();
    await expect(take()).resolves.toBeInstanceOf(InstanceLease);
  });
});
