/**
 * The contract every LeaseStore adapter keeps: a lease is taken when none is held, refused to
 * others while unexpired (naming its holder), taken over once expired, renewed and released by
 * its holder only, and of two instances racing for it exactly one gets it.
 */
import { Lease, LeaseStore } from '../../src/platform/instance/lease-store.js';

/** One place for a lease; `open` gives each instance its own store on it. */
export interface LeasePlace {
  open(): Promise<LeaseStore>;
  dispose(): Promise<void>;
}

const T0 = new Date('2026-11-28T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function lease(instanceId: string, expiresInMs: number, extra: Partial<Lease> = {}): Lease {
  return { instanceId, host: `host-${instanceId}`, pid: 1000 + instanceId.length, startedAt: T0, expiresAt: at(expiresInMs), ...extra };
}

export function leaseStoreContract(name: string, makePlace: () => Promise<LeasePlace>): void {
  describe(`LeaseStore contract: ${name}`, () => {
    let place: LeasePlace;
    let a: LeaseStore;
    let b: LeaseStore;
    beforeEach(async () => {
      place = await makePlace();
      a = await place.open();
      b = await place.open();
    });
    afterEach(async () => {
      await a.close();
      await b.close();
      await place.dispose();
    });

    it('takes a lease when none is held, and gives its record back', async () => {
      expect(await a.holder()).toBeUndefined();
      expect(await a.acquire(lease('a', 15_000, { port: 3000 }), T0)).toEqual({ acquired: true });
      expect(await b.holder()).toEqual(lease('a', 15_000, { port: 3000 }));
    });

    it('refuses another instance while the lease is unexpired, naming the holder and its expiry; the holder may take it again', async () => {
      await a.acquire(lease('a', 15_000), T0);
      expect(await b.acquire(lease('b', 30_000), at(14_999))).toEqual({ acquired: false, holder: lease('a', 15_000) });
      expect(await a.acquire(lease('a', 20_000), at(5_000))).toEqual({ acquired: true });
      expect((await b.holder())?.expiresAt).toEqual(at(20_000));
    });

    it('lets another instance take an expired lease, after which the old holder can no longer renew it', async () => {
      await a.acquire(lease('a', 15_000), T0);
      expect(await b.acquire(lease('b', 30_000), at(15_000))).toEqual({ acquired: true });
      expect(await a.renew(lease('a', 40_000))).toBe(false);
      expect((await a.holder())?.instanceId).toBe('b');
    });

    it('renews the holder’s lease with a new expiry and port', async () => {
      await a.acquire(lease('a', 15_000), T0);
      expect(await a.renew(lease('a', 20_000, { port: 8080 }))).toBe(true);
      expect(await b.holder()).toEqual(lease('a', 20_000, { port: 8080 }));
      expect(await b.acquire(lease('b', 30_000), at(16_000))).toEqual({ acquired: false, holder: lease('a', 20_000, { port: 8080 }) });
    });

    it('ends the lease on release by its holder only: another instance then takes it before the old expiry', async () => {
      await a.acquire(lease('a', 15_000), T0);
      await b.release('b');
      expect((await a.holder())?.instanceId).toBe('a');
      await a.release('a');
      expect(await b.holder()).toBeUndefined();
      expect(await b.acquire(lease('b', 20_000), at(1_000))).toEqual({ acquired: true });
      expect(await a.renew(lease('a', 20_000))).toBe(false);
    });

    it('gives the lease to exactly one of two instances that race for it', async () => {
      const outcomes = await Promise.all([a.acquire(lease('a', 15_000), T0), b.acquire(lease('b', 15_000), T0)]);
      expect(outcomes.filter((o) => o.acquired)).toHaveLength(1);
      const winner = outcomes[0].acquired ? 'a' : 'b';
      expect((await a.holder())?.instanceId).toBe(winner);
      const loser = outcomes.find((o) => !o.acquired);
      expect(loser).toEqual({ acquired: false, holder: expect.objectContaining({ instanceId: winner }) });
    });
  });
}
