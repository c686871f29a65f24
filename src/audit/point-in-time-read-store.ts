/**
 * The live ReadStore, wrapped so that a piece of work can be pointed at another store: inside
 * `runWith(store, work)` every read-model read and write made by `work` and whatever it awaits
 * (through collections obtained at any time, e.g. in a query service's constructor) goes to
 * `store`; everywhere else, to the live models. An AsyncLocalStorage carries the choice, so a
 * point-in-time read runs the ordinary routes, guards and presenters over a throw-away store
 * while the projection runner, started outside any such context, keeps writing the live one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CollectionDef,
  DocChange,
  ImmediateCollection,
  ListQuery,
  orderOf,
  ReadCollection,
  ReadDoc,
  ReadStore,
  Scalar,
  WalkPage,
  WalkQuery,
} from '../platform/read-store/read-store.js';

class SwitchingCollection<T extends ReadDoc> implements ReadCollection<T> {
  constructor(
    private readonly def: CollectionDef,
    private readonly current: () => ReadStore,
  ) {}

  get order(): string {
    return orderOf(this.def);
  }

  private target(): ReadCollection<T> {
    return this.current().collection<T>(this.def);
  }

  get immediate(): ImmediateCollection<T> | undefined {
    return this.target().immediate;
  }

  get(id: string): Promise<T | null> {
    return this.target().get(id);
  }

  findOne(where: Record<string, Scalar>): Promise<T | null> {
    return this.target().findOne(where);
  }

  put(doc: T, position: bigint): Promise<boolean> {
    return this.target().put(doc, position);
  }

  delete(id: string, position: bigint): Promise<boolean> {
    return this.target().delete(id, position);
  }

  /** The target's bulk writes, when it has them (the projection runner asks before it writes). */
  get applyMany(): ((changes: readonly DocChange<T>[]) => Promise<void>) | undefined {
    const target = this.target();
    return target.applyMany === undefined ? undefined : (changes) => target.applyMany!(changes);
  }

  list(query: ListQuery): Promise<T[]> {
    return this.target().list(query);
  }

  walk(query: WalkQuery): Promise<WalkPage<T>> {
    return this.target().walk(query);
  }

  count(query: Omit<ListQuery, 'limit' | 'offset' | 'after'>): Promise<number> {
    return this.target().count(query);
  }
}

export class PointInTimeReadStore implements ReadStore {
  private readonly context = new AsyncLocalStorage<ReadStore>();
  private readonly collections = new Map<string, SwitchingCollection<ReadDoc>>();
  /** Pieces of redirected work under way (see `hold`). */
  private held = 0;

  constructor(readonly live: ReadStore) {}

  get durable(): boolean {
    return this.live.durable;
  }

  /** Runs `work` (and everything it starts or awaits) with read-model access answered by `store`. */
  runWith<T>(store: ReadStore, work: () => T): T {
    return this.context.run(store, work);
  }

  /**
   * Marks a piece of work that runs through `runWith` (a point-in-time request, from before its
   * ticket is redeemed until its answer has been read); call the returned function when it has
   * ended. On Node 20 an AsyncLocalStorage carries its context with promise hooks, switched on at
   * its first `run` and left on: every await of the whole process then costs about 2.5 times as
   * much (measured: 55 against 136 ms per million), so one point-in-time read slowed every
   * request after it. The context is switched off again when the last piece of work has ended
   * (and back on by the next `runWith`).
   */
  hold(): () => void {
    this.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
      if (this.held === 0) this.context.disable();
    };
  }

  /** True inside `runWith`. */
  get redirected(): boolean {
    return this.context.getStore() !== undefined;
  }

  private current = (): ReadStore => this.context.getStore() ?? this.live;

  collection<T extends ReadDoc = ReadDoc>(def: CollectionDef): ReadCollection<T> {
    let collection = this.collections.get(def.name);
    if (!collection) this.collections.set(def.name, (collection = new SwitchingCollection(def, this.current)));
    return collection as unknown as ReadCollection<T>;
  }

  getCheckpoint(name: string): Promise<bigint | undefined> {
    return this.current().getCheckpoint(name);
  }

  setCheckpoint(name: string, position: bigint): Promise<void> {
    return this.current().setCheckpoint(name, position);
  }

  clear(): Promise<void> {
    return this.current().clear();
  }

  /** The live store's: the runner that tells it follows the live log (point-in-time stores are loaded whole). */
  trackApplied(applied: () => bigint): void {
    this.live.trackApplied?.(applied);
  }

  settle(): void {
    this.current().settle?.();
  }

  ping(): Promise<void> {
    return this.live.ping();
  }

  close(): Promise<void> {
    return this.live.close();
  }
}
