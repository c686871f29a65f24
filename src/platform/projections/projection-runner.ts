/**
 * Feeds the event store's global log to every projection, in order, one event at a time
 * (`for await`, never overlapping), with a checkpoint per projection. It is also the
 * read-your-writes gate: a command handler awaits `waitFor(position)` before answering, so a
 * GET after a successful write sees it.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STORE, type EventStore, RecordedEvent, Subscription } from '../event-store/event-store.js';
import { READ_STORE, ReadCollection, type ReadStore } from '../read-store/read-store.js';
import { Projection, PROJECTIONS } from './projection.js';

const CHECKPOINT_EVERY_MS = 1000;
const READ_YOUR_WRITES_TIMEOUT_MS = 10_000;
const RETRY_AFTER_FAILURE_MS = 1000;

interface Bound {
  projection: Projection;
  collection: ReadCollection;
  checkpoint: bigint;
}

@Injectable()
export class ProjectionRunner implements OnApplicationShutdown {
  private readonly logger = new Logger('Projections');
  private bound: Bound[] = [];
  private byType = new Map<string, Bound[]>();
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
    @Inject(PROJECTIONS) private readonly projections: Projection[],
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
    if (!this.readStore.durable) await this.readStore.clear();
    this.bound = [];
    for (const projection of this.projections) {
      const checkpoint = (await this.readStore.getCheckpoint(projection.name)) ?? 0n;
      this.bound.push({ projection, collection: this.readStore.collection(projection.collection), checkpoint });
    }
    this.byType = new Map();
    for (const b of this.bound) {
      for (const type of b.projection.handles) this.byType.set(type, [...(this.byType.get(type) ?? []), b]);
    }
    this.position = this.bound.reduce((min, b) => (b.checkpoint < min ? b.checkpoint : min), this.bound[0]?.checkpoint ?? 0n);
    await this.catchUp();
    await this.saveCheckpoints();
    this.loop = this.follow();
    this.markCaughtUp();
  }

  /** Applies every stored event after the current position, batch by batch. */
  private async catchUp(): Promise<void> {
    for (;;) {
      const batch = await this.events.readAll({ after: this.position, maxCount: 1000 });
      if (batch.length === 0) return;
      for (const event of batch) await this.apply(event);
    }
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        this.subscription = this.events.subscribe(this.position);
        for await (const event of this.subscription) {
          await this.apply(event);
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

  private async apply(event: RecordedEvent): Promise<void> {
    for (const b of this.byType.get(event.type) ?? []) {
      if (event.position <= b.checkpoint) continue;
      for (const key of b.projection.keys(event)) {
        const doc = await b.collection.get(key);
        const next = b.projection.evolve(doc, event, key);
        if (next) await b.collection.put(next, event.position);
        else if (doc) await b.collection.delete(key, event.position);
      }
    }
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
