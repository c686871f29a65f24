/**
 * Readiness (GET /ready): the service should receive traffic only when both stores answer and
 * the read models are close enough to the log that reads are not stale. Each check is bounded
 * in time, so a hung store makes /ready fail instead of hang.
 */
import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, type Config } from '../platform/config.js';
import { ServiceUnavailableError } from '../platform/errors.js';
import { EVENT_STORE, type EventStore } from '../platform/event-store/event-store.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.js';
import { ProjectionLag } from './projection-lag.js';
import { RequestTelemetry } from '../platform/observability/request-telemetry.js';

const CHECK_TIMEOUT_MS = 2000;

export interface ReadinessReport {
  status: 'ready';
  read_models: { lag_events: number; lag_seconds: number };
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

@Injectable()
export class Readiness {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CONFIG) private readonly config: Config,
    private readonly runner: ProjectionRunner,
    private readonly lag: ProjectionLag,
    private readonly telemetry: RequestTelemetry,
  ) {}

  /** The report when ready; throws a 503 listing every failed check otherwise. */
  async check(): Promise<ReadinessReport> {
    const errors: string[] = [];
    if (!this.telemetry.isAccepting) errors.push('the service is shutting down');
    const [eventStore, readStore] = await Promise.allSettled([within(this.events.ping(), CHECK_TIMEOUT_MS), within(this.readStore.ping(), CHECK_TIMEOUT_MS)]);
    if (eventStore.status === 'rejected') errors.push('the event store does not answer');
    if (readStore.status === 'rejected') errors.push('the read store does not answer');
    let lag = { events: 0, seconds: 0, capped: false };
    if (eventStore.status === 'fulfilled') {
      try {
        lag = await within(this.lag.measure(this.config.readyMaxLagEvents), CHECK_TIMEOUT_MS);
      } catch {
        errors.push("the read models' lag could not be measured");
      }
    }
    if (this.runner.lastFailure) errors.push(`the read models stopped at position ${this.runner.processed}: a projection is failing`);
    if (lag.capped || lag.events > this.config.readyMaxLagEvents) {
      errors.push(`the read models are more than ${this.config.readyMaxLagEvents} events behind the event store`);
    }
    if (lag.seconds > this.config.readyMaxLagSeconds) {
      errors.push(`the read models are ${Math.round(lag.seconds)} s behind the event store (limit ${this.config.readyMaxLagSeconds} s)`);
    }
    if (errors.length > 0) throw new ServiceUnavailableError(errors, { 'retry-after': '5' });
    return { status: 'ready', read_models: { lag_events: lag.events, lag_seconds: Math.round(lag.seconds * 1000) / 1000 } };
  }
}
