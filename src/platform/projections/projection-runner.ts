/**
 * Feeds the event store's global log to every projection, in order, one event at a time
 * (`for await`, never overlapping), with a checkpoint per projection. It is also the
 * read-your-writes gate: a command handler awaits `waitFor(position)` before answering, so a
 * GET after a successful write sees it.
 *
 * `replay()` is the same application of events as a one-off: it builds read models into any
 * ReadStore (a throw-away one for point-in-time reads, a fresh one for rebuilds), optionally
 * only up to a position, through the runner's own `applyEvent`, so both build identical documents.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STORE, type EventStore, ProjectedEvent, readAllBatches, RecordedEvent, Subscription } from '../event-store/event-store.js';
import { type DocChange, READ_STORE, ReadCollection, type ReadDoc, type ReadStore } from '../read-store/read-store.js';
import { AnyProjection, PROJECTIONS } from './projection.js';

const CHECKPOINT_EVERY_MS = 1000;
const READ_YOUR_WRITES_TIMEOUT_MS = 10_000;
const RETRY_AFTER_FAILURE_MS = 1000;

interface Bound {
  projection: AnyProjection;
  collection: ReadCollection;
  checkpoint: bigint;
}

/** In `Projection.handles`: the projection sees every event, of types known or added later (the audit index). */
export const ALL_EVENT_TYPES = '*';

/** Projections by the event types they handle (each list includes those that see every type), bound to one read store. */
interface BoundByType {
  byType: Map<string, Bound[]>;
  /** Projections that see every event (ALL_EVENT_TYPES). */
  everyType: Bound[];
  /** The types worth reading from the log; undefined when some projection sees every type. */
  types: string[] | undefined;
  /** Whether some projection reads the events' id, revision or metadata (a ProvenanceProjection). */
  provenance: boolean;
  /** Every collection answers through promises and takes changes in bulk (applyMany): batches of events go to it together. */
  many: boolean;
}

function byEventType(bound: readonly Bound[]): BoundByType {
  const everyType = bound.filter((b) => b.projection.handles.includes(ALL_EVENT_TYPES));
  const byType = new Map<string, Bound[]>();
  for (const b of bound) {
    for (const type of b.projection.handles) {
      if (type !== ALL_EVENT_TYPES && !everyType.includes(b)) byType.set(type, [...(byType.get(type) ?? []), b]);
    }
  }
  for (const [type, list] of byType) byType.set(type, [...list, ...everyType]);
  const many = bound.length > 0 && bound.every((b) => b.collection.immediate === undefined && b.collection.applyMany !== undefined);
  return {
    byType,
    everyType,
    types: everyType.length > 0 ? undefined : [...byType.keys()],
    provenance: bound.some((b) => b.projection.provenance === true),
    many,
  };
}

/**
 * Applies one event to every projection that handles it and has not seen it yet. Every write
 * is guarded by the event's position, so applying an event twice changes nothing. Collections
 * held in this process are written at once (no promise per call: a replay makes millions);
 * the result is a promise only when some collection answers through one (MongoDB).
 */
function applyEvent(bound: BoundByType, event: RecordedEvent): Promise<void> | undefined {
  const targets = bound.byType.get(event.type) ?? bound.everyType;
  for (let t = 0; t < targets.length; t += 1) {
    const b = targets[t];
    if (event.position <= b.checkpoint) continue;
    const now = b.collection.immediate;
    if (now === undefined) return applyFrom(targets, t, event);
    const keys = b.projection.keys(event);
    for (let k = 0; k < keys.length; k += 1) {
      const key = keys[k];
      const doc = now.get(key);
      const next = b.projection.evolve(doc, event, key);
      if (next) now.put(next, event.position);
      else if (doc) now.delete(key, event.position);
    }
  }
  return undefined;
}

/** applyEvent through the collections' promises, from target `from` on. */
async function applyFrom(targets: readonly Bound[], from: number, event: RecordedEvent): Promise<void> {
  for (let t = from; t < targets.length; t += 1) {
    const b = targets[t];
    if (event.position <= b.checkpoint) continue;
    const keys = b.projection.keys(event);
    // An event of many documents (a coupon bank's codes) in bulk, not a round trip or two per document.
    if (b.collection.applyMany) {
      await b.collection.applyMany(keys.map((key) => ({ id: key, position: event.position, change: (doc) => b.projection.evolve(doc, event, key) })));
      continue;
    }
    for (let k = 0; k < keys.length; k += 1) {
      const key = keys[k];
      const doc = await b.collection.get(key);
      const next = b.projection.evolve(doc, event, key);
      if (next) await b.collection.put(next, event.position);
      else if (doc) await b.collection.delete(key, event.position);
    }
  }
}

/**
 * Applies `events`, in order, when every collection takes changes in bulk (BoundByType.many): each
 * collection's changes of the whole batch go to one applyMany, which gives each change the document
 * as the earlier ones left it, so the result is that of applying the events one by one.
 */
async function applyInBulk(bound: BoundByType, events: readonly RecordedEvent[]): Promise<void> {
  // By collection name: projections that write one collection (a feature's, and its erasure) must
  // have their changes in one list, in event order, whatever object the store handed each.
  const changes = new Map<string, { collection: ReadCollection; list: DocChange<ReadDoc>[] }>();
  for (const event of events) {
    const targets = bound.byType.get(event.type) ?? bound.everyType;
    for (const b of targets) {
      if (event.position <= b.checkpoint) continue;
      let entry = changes.get(b.projection.collection.name);
      if (entry === undefined) changes.set(b.projection.collection.name, (entry = { collection: b.collection, list: [] }));
      for (const key of b.projection.keys(event)) entry.list.push({ id: key, position: event.position, change: (doc) => b.projection.evolve(doc, event, key) });
    }
  }
  for (const { collection, list } of changes.values()) await collection.applyMany!(list);
}

/**
 * Events per read while catching up or replaying. A batch's events are all alive until it is
 * applied, so young-generation collections in the middle of one copied them, and promoted
 * some: 5,000 a batch held the service at 666–676 MB of RSS when a 1,000,000-event replay was
 * ready, 1,000 at 624–635 (four alternating pairs, replay-variant.mjs), in the same time.
 */
const CATCH_UP_BATCH = 1000;

/**
 * The stored events of the types some projection handles, after `after` and up to `until`,
 * batch by batch. A filtered read says nothing about the events it skipped, so a reader that
 * finishes has read the log up to `until`, not only up to the last event it was given.
 */
async function* handledBatches(events: EventStore, bound: BoundByType, after: bigint, until: bigint, batchSize: number): AsyncGenerator<RecordedEvent[]> {
  const options = { after, until, maxCount: batchSize, types: bound.types };
  if (!events.readBatches) yield* readAllBatches(events, options);
  else if (bound.provenance) yield* events.readBatches(options);
  // Without their provenance: no bound projection reads it (their keys and evolve take a
  // ProjectedEvent, which is all that applyEvent hands them of these).
  else yield* events.readBatches({ ...options, provenance: false }) as AsyncIterable<RecordedEvent[]>;
}

export interface ReplayOptions {
  /** Inclusive upper bound on the global position; omitted = up to the head of the log. */
  until?: bigint;
  /** Stops before the first event for which this is true (that event and later ones are not applied). */
  stopBefore?: (event: ProjectedEvent) => boolean;
  batchSize?: number;
  /** Called after every batch. */
  onProgress?: (progress: ReplayProgress) => void;
}

export interface ReplayProgress {
  /** Position of the last event applied (the starting checkpoint before the first). */
  position: bigint;
  /** Events applied by this replay. */
  events: number;
  /** Created time of the last event applied. */
  lastEventAt: Date | undefined;
}

/**
 * Builds read models from the log into `readStore`, starting at its checkpoints (a fresh
 * store: at the start of the log), in position order, and stores a checkpoint per projection
 * at the end. The live runner is not involved: this is for throw-away and offline stores.
 */
export async function replay(
  events: EventStore,
  readStore: ReadStore,
  projections: readonly AnyProjection[],
  options: ReplayOptions = {},
): Promise<ReplayProgress> {
  const bound: Bound[] = [];
  for (const projection of projections) {
    const checkpoint = (await readStore.getCheckpoint(projection.name)) ?? 0n;
    bound.push({ projection, collection: readStore.collection(projection.collection), checkpoint });
  }
  const byType = byEventType(bound);
  const progress: ReplayProgress = {
    position: bound.reduce((min, b) => (b.checkpoint < min ? b.checkpoint : min), bound[0]?.checkpoint ?? 0n),
    events: 0,
    lastEventAt: undefined,
  };
  const until = options.until ?? (await events.headPosition());
  let stopped = false;
  for await (const batch of handledBatches(events, byType, progress.position, until, options.batchSize ?? CATCH_UP_BATCH)) {
    if (byType.many) {
      const stop = options.stopBefore === undefined ? -1 : batch.findIndex(options.stopBefore);
      const applied = stop < 0 ? batch : batch.slice(0, stop);
      await applyInBulk(byType, applied);
      const last = applied[applied.length - 1];
      if (last !== undefined) {
        progress.position = last.position;
        progress.events += applied.length;
        progress.lastEventAt = last.createdAt;
      }
      options.onProgress?.({ ...progress });
      if (stop >= 0) {
        stopped = true;
        break;
      }
      continue;
    }
    for (const event of batch) {
      if (options.stopBefore?.(event)) {
        stopped = true;
        break;
      }
      const pending = applyEvent(byType, event);
      if (pending) await pending;
      progress.position = event.position;
      progress.events += 1;
      progress.lastEventAt = event.createdAt;
    }
    options.onProgress?.({ ...progress });
    if (stopped) break;
  }
  if (!stopped && progress.position < until) progress.position = until;
  for (const b of bound) {
    if (progress.position > b.checkpoint) await readStore.setCheckpoint(b.projection.name, progress.position);
  }
  return progress;
}

@Injectable()
export class ProjectionRunner implements OnApplicationShutdown {
  private readonly logger = new Logger('Projections');
  private bound: Bound[] = [];
  private byType: BoundByType = byEventType([]);
  private position = 0n;
  private waiters: { position: bigint; resolve: () => void }[] = [];
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  private lastCheckpointSave = 0;
  private failure: Error | undefined;

  private markCaughtUp!: () => void;
  /** Resolves once start() has applied every event stored before it; background processors await it. */
  readonly caughtUp: Promise<void> = new Promise((resolve) => (this.markCaughtUp = resolve));

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PROJECTIONS) private readonly projections: AnyProjection[],
  ) {}

  /** Position of the last event every projection has applied. */
  get processed(): bigint {
    return this.position;
  }

  get lastFailure(): Error | undefined {
    return this.failure;
  }

  /**
   * Catches up with the log (a full replay for in-memory models), then follows it live.
   * Resolves once caught up, so the service answers only from complete read models.
   */
  async start(): Promise<void> {
    // A store whose writes of one event are not atomic bounds walks by what this process has applied.
    this.readStore.trackApplied?.(() => this.position);
    if (!this.readStore.durable) await this.readStore.clear();
    this.bound = [];
    for (const projection of this.projections) {
      const checkpoint = (await this.readStore.getCheckpoint(projection.name)) ?? 0n;
      this.bound.push({ projection, collection: this.readStore.collection(projection.collection), checkpoint });
    }
    this.byType = byEventType(this.bound);
    this.position = this.bound.reduce((min, b) => (b.checkpoint < min ? b.checkpoint : min), this.bound[0]?.checkpoint ?? 0n);
    await this.catchUp();
    // The first request should not pay for the lists an in-memory store defers during a replay.
    this.readStore.settle?.();
    await this.saveCheckpoints();
    this.loop = this.follow();
    this.markCaughtUp();
  }

  /**
   * Applies every stored event after the current position, batch by batch: only the types
   * some projection handles, up to the head of the log as it was when catching up began.
   */
  private async catchUp(): Promise<void> {
    const head = await this.events.headPosition();
    for await (const batch of handledBatches(this.events, this.byType, this.position, head, CATCH_UP_BATCH)) {
      if (this.byType.many && batch.length > 0) {
        await applyInBulk(this.byType, batch);
        this.applied(batch[batch.length - 1]);
        continue;
      }
      for (const event of batch) {
        const pending = this.apply(event);
        if (pending) await pending;
      }
    }
    if (this.position < head) this.position = head;
    if (this.waiters.length > 0) this.release();
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        // After a failure, reading up to the head proves the store answers again: readiness comes
        // back then, not at the next event, which a quiet deployment may not see for hours.
        if (this.failure) {
          await this.catchUp();
          this.failure = undefined;
        }
        this.subscription = this.events.subscribe(this.position);
        for await (const event of this.subscription) {
          const pending = this.apply(event);
          if (pending) await pending;
          if (Date.now() - this.lastCheckpointSave > CHECKPOINT_EVERY_MS) await this.saveCheckpoints();
        }
      } catch (error) {
        if (this.stopped) return;
        this.failure = error as Error;
        this.logger.error(`projection failed at position ${this.position}: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_AFTER_FAILURE_MS));
      }
    }
  }

  /** Applies `event` and advances the position; a promise only when a collection answers through one. */
  private apply(event: RecordedEvent): Promise<void> | undefined {
    const pending = applyEvent(this.byType, event);
    if (pending) return pending.then(() => this.applied(event));
    this.applied(event);
    return undefined;
  }

  private applied(event: RecordedEvent): void {
    this.position = event.position;
    this.failure = undefined;
    if (this.waiters.length > 0) this.release();
  }

  private release(): void {
    const still: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (waiter.position <= this.position) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  /** Resolves when every projection has applied the event at `position`. */
  waitFor(position: bigint): Promise<void> {
    if (position <= this.position) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.logger.warn(`read models did not reach position ${position} within ${READ_YOUR_WRITES_TIMEOUT_MS} ms`);
        resolve();
      }, READ_YOUR_WRITES_TIMEOUT_MS);
      this.waiters.push({
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  private async saveCheckpoints(): Promise<void> {
    this.lastCheckpointSave = Date.now();
    for (const b of this.bound) {
      if (this.position > b.checkpoint) {
        b.checkpoint = this.position;
        await this.readStore.setCheckpoint(b.projection.name, this.position);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.close();
    await this.loop;
    await this.saveCheckpoints().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }
}
