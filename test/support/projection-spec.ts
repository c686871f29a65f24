/**
 * Read-model specs through the real path: events appended to an in-memory SQLite event store,
 * then replayed into a MemoryReadStore by the service's own replay(), which resumes at the
 * store's checkpoints, so a spec can apply events in steps and look between them.
 */
import { RecordedEvent } from '../../src/platform/event-store/event-store.js';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store.js';
import { Projection } from '../../src/platform/projections/projection.js';
import { replay } from '../../src/platform/projections/projection-runner.js';
import { MemoryReadStore } from '../../src/platform/read-store/memory-read-store.js';
import { CollectionDef, ReadCollection, ReadDoc } from '../../src/platform/read-store/read-store.js';

/** [stream, type, data] of an event to append. */
export type Given = [stream: string, type: string, data: unknown];

export class ProjectedLog {
  private readonly log = new SqliteEventStore({ path: ':memory:' });
  readonly store = new MemoryReadStore();

  constructor(private readonly projections: readonly Projection[]) {}

  async apply(...events: Given[]): Promise<void> {
    for (const [stream, type, data] of events) await this.log.append(stream, [{ type, data }], 'any');
    await replay(this.log, this.store, this.projections);
  }

  /** A stream's events as the log holds them (for read models that show a stream folded). */
  readStream(stream: string): Promise<RecordedEvent[]> {
    return this.log.readStream(stream);
  }

  collection<T extends ReadDoc>(def: CollectionDef): ReadCollection<T> {
    return this.store.collection<T>(def);
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
