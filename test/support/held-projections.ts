/**
 * Read models that apply the log only when a test says so, in place of the ProjectionRunner a
 * command waits on for read-your-writes: `waitFor` resolves once `applyUpTo` has reached its
 * position, and records every position asked for.
 */
import type { ProjectionRunner } from '../../src/platform/projections/projection-runner.js';

export interface HeldProjections {
  /** The runner's stand-in, for a command runner or handler. */
  readonly runner: ProjectionRunner;
  /** Positions passed to `waitFor`, in call order. */
  readonly asked: bigint[];
  /** Resolves once `waitFor` has been called `calls` times in all. */
  waited(calls: number): Promise<void>;
  /** The read models have applied every event up to `position`: the waits for it end. */
  applyUpTo(position: bigint): void;
  /** Whether `answer` is still pending once `waitFor` has been called `calls` times (false when `answer` settles first). */
  holds(answer: Promise<unknown>, calls?: number): Promise<boolean>;
}

export function heldProjections(applied = 0n): HeldProjections {
  const asked: bigint[] = [];
  let waiters: { position: bigint; resolve: () => void }[] = [];
  const counted: { calls: number; resolve: () => void }[] = [];
  const waited = (calls: number) => new Promise<void>((resolve) => (asked.length >= calls ? resolve() : counted.push({ calls, resolve })));
  const runner = {
    waitFor(position: bigint): Promise<void> {
      asked.push(position);
      for (const c of counted) if (asked.length >= c.calls) c.resolve();
      if (position <= applied) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ position, resolve }));
    },
  } as unknown as ProjectionRunner;
  return {
    runner,
    asked,
    waited,
    applyUpTo(position) {
      applied = position;
      for (const w of waiters) if (w.position <= applied) w.resolve();
      waiters = waiters.filter((w) => w.position > applied);
    },
    async holds(answer, calls = 1) {
      let settled = false;
      const done = answer.then(
        () => (settled = true),
        () => (settled = true),
      );
      await Promise.race([waited(calls), done]);
      return !settled;
    },
  };
}
