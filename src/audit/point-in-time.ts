/**
 * Point-in-time read models: every registered projection (the PROJECTIONS the runner feeds, so a
 * new read model is covered without changes here) but the audit index (in that list only when
 * the event store does not keep it itself, see audit-storage.ts), which is a history already
 * and the costliest to build, replayed into a fresh in-memory store, up to
 * a global position or up to the last event recorded at or before a time. A prefix of the log
 * is a state the service really was in; "every event before T" would not be if clocks stepped back.
 *
 * Replays cost O(events before the point), so one runs at a time, and the last few points
 * that lie before the head of the log (their models can no longer change) are kept for a
 * minute, so paging through one point in time replays once.
 */
import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '../platform/event-store/event-store.js';
import { AnyProjection, PROJECTIONS } from '../platform/projections/projection.js';
import { replay } from '../platform/projections/projection-runner.js';
import { MemoryReadStore } from '../platform/read-store/memory-read-store.js';
import { auditIndexProjection } from './audit-index.projection.js';

const KEEP = 3;
const KEEP_MS = 60_000;

export type PointInTimeTarget = { position: bigint } | { at: Date };

export interface PointInTimeModels {
  store: MemoryReadStore;
  /** Position of the last event applied (0 when none was). */
  position: bigint;
  /** Recorded time of that event. */
  lastEventAt: Date | undefined;
  events: number;
  /** True when later events exist, so these models can never change. */
  final: boolean;
}

@Injectable()
export class PointInTime {
  private readonly cache = new Map<string, { models: Promise<PointInTimeModels>; at: number }>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(PROJECTIONS) private readonly projections: AnyProjection[],
  ) {}

  models(target: PointInTimeTarget): Promise<PointInTimeModels> {
    const key = 'position' in target ? `p${target.position}` : `t${target.at.toISOString()}`;
    const now = Date.now();
    for (const [k, v] of this.cache) if (now - v.at > KEEP_MS) this.cache.delete(k);
    const cached = this.cache.get(key);
    if (cached) return cached.models;
    const models = this.serially(() => this.build(target));
    this.cache.set(key, { models, at: now });
    models.then(
      (built) => {
        if (!built.final) this.cache.delete(key);
      },
      () => this.cache.delete(key),
    );
    while (this.cache.size > KEEP) this.cache.delete(this.cache.keys().next().value!);
    return models;
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async build(target: PointInTimeTarget): Promise<PointInTimeModels> {
    const store = new MemoryReadStore();
    const head = await this.events.headPosition();
    const at = 'at' in target ? target.at.getTime() : undefined;
    const projections = this.projections.filter((p) => p.name !== auditIndexProjection.name);
    const done = await replay(this.events, store, projections, {
      // A position beyond the head is the head: as_of.position says what was reached, and a
      // next_page built on it must not take in events written after this read.
      until: 'position' in target && target.position < head ? target.position : head,
      stopBefore: at === undefined ? undefined : (event) => event.createdAt.getTime() > at,
    });
    return { store, position: done.position, lastEventAt: done.lastEventAt, events: done.events, final: done.position < head };
  }
}
