/**
 * The event index's public shape: what a caller indexes an event under (`SqliteEventIndex`), how it
 * queries it, and what an open reports (a rebuild, or events the log lost). See sqlite-event-store.ts.
 */
import { RecordedEvent } from './event-store.js';

/** The entity whose entries list every indexed event of a merchant: type filters on it have an index of their own. */
export const EVERY_ENTRY = '*';

/** What `SqliteEventIndex.entriesOf` sees of an event (the data and metadata as appended). */
export type IndexableEvent = Pick<RecordedEvent, 'type' | 'data' | 'metadata' | 'streamName'>;

export interface EventIndexEntry {
  merchantId: number;
  entity: string;
}

/** Which entries an event is indexed under, and the version of those rules. */
export interface SqliteEventIndex {
  /** Must change whenever `entriesOf` could answer differently for a stored event: the index is then rebuilt at open. */
  readonly version: string;
  /** The entries of one event; duplicates are ignored. Must be a pure function of the event. */
  entriesOf(event: IndexableEvent): readonly EventIndexEntry[];
}

/** A store that keeps an event index and answers from it (the embedded store, and layers over it that hand it on). */
export interface IndexedEventStore {
  /** The version of the index kept; undefined when the store keeps none. */
  readonly indexVersion: string | undefined;
  /** Set when this open (re)indexed events of the log. */
  readonly indexRebuild: EventIndexRebuild | undefined;
  readIndex(query: EventIndexQuery): Promise<RecordedEvent[]>;
  inIndex(merchantId: number, entity: string): Promise<boolean>;
}

/** The store's index, when it keeps one of this version. */
export function keepsIndex(store: object, version: string): store is IndexedEventStore {
  const candidate = store as Partial<IndexedEventStore>;
  return typeof candidate.readIndex === 'function' && candidate.indexVersion === version;
}

export interface EventIndexQuery {
  merchantId: number;
  entity: string;
  /** Any of these event types; undefined or empty = every type. */
  types?: readonly string[];
  /** Only events of this stream. */
  stream?: string;
  /** Only entries strictly after this (created_at, position). */
  after?: { createdAt: string; position: bigint };
  /** Inclusive lower bound on created_at. */
  createdFrom?: string;
  /** Exclusive upper bound on created_at. */
  createdBefore?: string;
  limit: number;
}

export interface EventIndexRebuild {
  events: number;
  entries: number;
  ms: number;
  /**
   * Why: the index had no file yet (or was still inside the log's file, as before it had one of its
   * own), its version differed, or it does not match the log (its watermark's event is in the log
   * at another position): every event was indexed; or it was behind the log (a crash, or a writer
   * without the index had appended): the events after its watermark were indexed; or the log had
   * lost events the index had recorded, and the store was opened with `acceptEventLoss`: the old
   * index was moved aside (`lost`) and every event indexed.
   */
  reason: 'missing' | 'version' | 'mismatch' | 'behind' | 'lost';
  /** With reason `lost`: what the log lost, and where the old index is kept. */
  lost?: EventLogLoss;
}

/** Events the log lost: its index had recorded the log up to `indexedThrough`, and the log no longer holds that event. */
export interface EventLogLoss {
  /** The index's file. */
  indexPath: string;
  /** The index's watermark: the last position it had recorded, and the id of the event there. */
  indexedThrough: number;
  indexedEventId: string | null;
  /** The log's last position at open. */
  head: number;
  /** Where the index's file was moved (when the loss was accepted). */
  movedTo?: string;
}

/** The log lost events it had committed (its index recorded them; docs/architecture.md); nothing was changed. */
export class EventLogLossError extends Error {
  constructor(readonly loss: EventLogLoss) {
    super(describeEventLogLoss(loss));
    this.name = 'EventLogLossError';
  }
}

/** One sentence on what the log lost, with the positions. */
export function describeEventLogLoss(loss: EventLogLoss): string {
  const { indexPath, indexedThrough, indexedEventId, head } = loss;
  const recorded = `its index (${indexPath}) had recorded it up to position ${indexedThrough}${indexedEventId ? ` (event ${indexedEventId})` : ''}`;
  const lost =
    head < indexedThrough
      ? `the log ends at position ${head}: ${head + 1 === indexedThrough ? `position ${indexedThrough} is` : `positions ${head + 1} to ${indexedThrough} are`} gone`
      : `the log holds another event at position ${indexedThrough}: events up to that position were lost and their positions written again`;
  return `the event log has lost events it had committed: ${recorded}, but ${lost}`;
}

/** The event index's file, beside the log's (`events.sqlite` → `events.sqlite-index`, like SQLite's own `-wal`). */
export function indexPathOf(path: string): string {
  return `${path}-index`;
}
