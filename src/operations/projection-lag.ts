/**
 * How far the read models are behind the event store: the number of events not yet applied
 * (counted by reading them, capped, so it means the same on every adapter: positions are
 * SQLite row ids but EventStoreDB byte offsets) and the age of the oldest of them. /ready
 * and the projection-lag gauges both read it.
 */
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../platform/clock.js';
import { EVENT_STORE, type EventStore } from '../platform/event-store/event-store.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { Metrics } from '../platform/observability/metrics.js';

/** The gauge reads at most this many events; a lag of this value means "at least". */
export const LAG_COUNT_CAP = 10_000;

export interface Lag {
  /** Events in the log after the runner's position (at most `cap`). */
  events: number;
  /** True when there may be more than `events`. */
  capped: boolean;
  /** Seconds since the oldest unapplied event was recorded (0 when caught up). */
  seconds: number;
  processed: bigint;
  head: bigint;
}

@Injectable()
export class ProjectionLag {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly runner: ProjectionRunner,
    metrics: Metrics,
  ) {
    const measure = () => this.measure(LAG_COUNT_CAP);
    metrics.gauge({
      name: 'referral_projection_lag_events',
      help: `Events in the log not yet applied to the read models (capped at ${LAG_COUNT_CAP})`,
      async collect() {
        this.set((await measure()).events);
      },
    });
    metrics.gauge({
      name: 'referral_projection_lag_seconds',
      help: 'Age in seconds of the oldest event not yet applied to the read models (0 when caught up)',
      async collect() {
        this.set((await measure()).seconds);
      },
    });
  }

  async measure(cap: number): Promise<Lag> {
    // Head first: the runner may move on meanwhile, which can only make the lag look smaller.
    const head = await this.events.headPosition();
    const processed = this.runner.processed;
    if (processed >= head) return { events: 0, capped: false, seconds: 0, processed, head };
    // Only up to the head measured: what is appended meanwhile is the next measure's. On EventStoreDB both reads are filtered by the server to this namespace.
    const pending = await this.events.readAll({ after: processed, until: head, maxCount: cap + 1 });
    if (pending.length === 0) return { events: 0, capped: false, seconds: 0, processed, head };
    const seconds = Math.max(0, (this.clock.now().getTime() - pending[0].createdAt.getTime()) / 1000);
    return { events: Math.min(pending.length, cap), capped: pending.length > cap, seconds, processed, head };
  }
}
