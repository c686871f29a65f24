/**
 * A projection is data: which events it reads, which documents an event touches, and a pure
 * `evolve(doc, event)` that returns the next document (or null to delete it). The runner
 * guards every write with the event's global position, so applying an event twice changes
 * nothing.
 *
 * A projection reads what events say (ProjectedEvent), not who recorded them: the runner then
 * reads the log without each event's id, revision and metadata (readBatches with `provenance:
 * false`), 14 % of the text a replay parses. The one that must read them (the audit
 * index, on stores that do not keep it) is a ProvenanceProjection, and while one is bound the
 * runner reads whole events; the types keep the two apart.
 */
import { ProjectedEvent, RecordedEvent } from '../event-store/event-store.js';
import { CollectionDef, ReadDoc } from '../read-store/read-store.js';

interface ProjectionOf<D extends ReadDoc, E extends ProjectedEvent> {
  readonly name: string;
  readonly collection: CollectionDef;
  readonly handles: readonly string[];
  /** Keys (`_id`) of the documents this event changes. */
  keys(event: E): readonly string[];
  /** `key` is the one of `keys(event)` this call is for (an event may touch several documents). */
  evolve(doc: D | null, event: E, key: string): D | null;
}

export interface Projection<D extends ReadDoc = ReadDoc> extends ProjectionOf<D, ProjectedEvent> {
  readonly provenance?: false;
}

/** Reads each event's id, revision or metadata too. */
export interface ProvenanceProjection<D extends ReadDoc = ReadDoc> extends ProjectionOf<D, RecordedEvent> {
  readonly provenance: true;
}

/** What the runner, replays and rebuilds take. */
export type AnyProjection = Projection | ProvenanceProjection;

export const PROJECTIONS = Symbol('Projections');

/** Helps a projection narrow an event to its own union. */
export function isEvent<E extends { type: string; data: unknown }>(event: ProjectedEvent, type: E['type']): event is ProjectedEvent<E> {
  return event.type === type;
}
