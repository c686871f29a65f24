/**
 * A background pass that runs every `intervalMs` once the read models have caught up, and
 * on demand: overlapping requests share the pass in progress, a failure is logged (the next
 * tick tries again), and stop() waits for the pass in flight and the work it detached. Used by
 * the processors that find their work in read models rebuilt from the event store (reminders,
 * callbacks).
 */
import { Logger } from '@nestjs/common';
import { ProjectionRunner } from './projections/projection-runner.js';

export class PeriodicTask {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly detached = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    name: string,
    private readonly pass: () => Promise<void>,
  ) {
    this.logger = new Logger(name);
  }

  /** Starts ticking after the projection runner has caught up (never blocks start-up). */
  start(projections: ProjectionRunner, intervalMs: number): void {
    void projections.caughtUp.then(() => {
      if (this.stopped) return;
      this.timer = setInterval(() => void this.tick(), intervalMs);
      this.timer.unref();
      void this.tick();
    });
  }

  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.pass()
      .catch((error: Error) => this.logger.error(`pass failed: ${error.message}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Work a pass starts and does not wait for: one merchant's callback that hangs until its
   * timeout must not hold back the next pass, and so everybody else's due work. The caller keeps
   * the same item from being started twice while it runs; stop() waits for it.
   */
  detach(work: Promise<void>): void {
    const tracked: Promise<void> = work
      .catch((error: Error) => this.logger.error(`task failed: ${error.message}`))
      .finally(() => this.detached.delete(tracked));
    this.detached.add(tracked);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await Promise.all([...this.detached]);
  }
}
