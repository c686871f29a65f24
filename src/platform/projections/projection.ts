/**
 * A projection is data: which events it reads, which documents an event touches, and a pure
 * `evolve(doc, event)` that returns the next document (or null to delete it). The runner
 * guards every write with the event's global position, so applying an event twice changes
 * nothing.
 */
import { RecordedEvent } from '../event-store/event-store.js';
import { CollectionDef, ReadDoc } from '../read-store/read-store.js';

export interface Projection<D extends ReadDoc = ReadDoc> {
  readonly name: string;
  readonly collection: CollectionDef;
  readonly handles: readonly string[];
  /** Keys (`_id`) of the documents this event changes. */
  keys(event: RecordedEvent): readonly string[];
  /** `key` is the one of `keys(event)` this call is for (an event may touch several documents). */
  evolve(doc: D | null, event: RecordedEvent, key: string): D | null;
}

export const PROJECTIONS = Symbol('Projections');

/** Helps a projection narrow a recorded event to its own union. */
export function isEvent<E extends { type: string; data: unknown }>(event: RecordedEvent, type: E['type']): event is RecordedEvent<E> {
  return event.type === type;
}
