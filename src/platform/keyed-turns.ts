/**
 * Work that takes turns per key within this process: each piece of work under a key starts once
 * the previous one under that key has finished (failed or not). For checks that read the read
 * models and writes that depend on them across several streams (a coupon held by one referral
 * code, one champion per widget group): commands wait for the read models before they return,
 * so each turn sees every earlier turn's writes. It assumes one process per data directory
 * (docs/operations.md, "One process, or several"). Keys are namespaced by their users
 * (`coupons:<merchant>`, `widget-group:<merchant>:<group>`). The command runner's turns per
 * stream are another shape (a turn held across several awaits until released, several at once
 * in a plan), so they stay its own.
 */
import { Injectable } from '@nestjs/common';

@Injectable()
export class KeyedTurns {
  private readonly tails = new Map<string, Promise<unknown>>();

  take<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }
}
