/**
 * A projection is data: which events it reads, which documents an event touches, and a pure
 * `evolve(doc, event)` that returns the next document (or null to delete it). The runner
 * guards every write with the event's global position, so applying an event twice changes
 * nothing. Projections are written with defineProjection, which checks `handles` against the
 * union of events the projection reads; the runner takes them erased (Projection).
 *
 * A projection reads what events say (ProjectedEvent), not who recorded them: the runner then
 * reads the log without each event's id, revision and metadata (readBatches with `provenance:
 * false`), 14 % of the text a replay parses. The one that must read them (the audit
 * index, on stores that do not keep it) is a ProvenanceProjection, and while one is bound the
 * runner reads whole events; the types keep the two apart.
 */
import { DomainEvent, ProjectedEvent, RecordedEvent } from '../event-store/event-store.js';
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

/** Stored events of the union `E`, one ProjectedEvent per member, so a check of `type` narrows `data`. */
export type ProjectedOf<E extends DomainEvent> = E extends DomainEvent ? ProjectedEvent<E> : never;

/** The types of `E` that `H` leaves out: never when `H` names them all. */
type Unhandled<E extends DomainEvent, H extends readonly string[]> = Exclude<E['type'], H[number]>;

/** What a `handles` list lacks: a literal list (a tuple, which the compiler can check) naming every type of `E`. */
export type HandlesAll<E extends DomainEvent, H extends readonly string[]> = number extends H['length']
  ? { readonly handlesMustBeALiteralList: never }
  : [Unhandled<E, H>] extends [never]
    ? unknown
    : { readonly unhandled: Unhandled<E, H> };

/** A projection as written: `handles` names exactly the types of `E`, and each event arrives narrowed to `E`. */
export interface ProjectionDef<D extends ReadDoc, E extends DomainEvent, H extends readonly E['type'][] = readonly E['type'][]> {
  readonly name: string;
  readonly collection: CollectionDef;
  readonly handles: H;
  keys(event: ProjectedOf<E>): readonly string[];
  evolve(doc: D | null, event: ProjectedOf<E>, key: string): D | null;
}

/**
 * Checks a projection against the union of events it reads: a name in `handles` not of `E`, a
 * type of `E` missing from it, or a list whose names the compiler cannot see, does not compile. Returns the erased Projection the runner takes.
 */
export function defineProjection<D extends ReadDoc, E extends DomainEvent>() {
  return <const H extends readonly E['type'][]>(def: ProjectionDef<D, E, H> & HandlesAll<E, H>): Projection<D> => def;
}

/** Narrows an event read from a stream (not handed over by the runner) to the union `E`, whose types `types` lists. */
export function isEventOf<E extends DomainEvent>(types: readonly E['type'][]): <T extends { readonly type: string }>(event: T) => event is T & E {
  const known: ReadonlySet<string> = new Set(types);
  return <T extends { readonly type: string }>(event: T): event is T & E => known.has(event.type);
}

/** The distinct collections the projections write (several projections may write one). */
export function collectionsOf(projections: readonly AnyProjection[]): CollectionDef[] {
  const byName = new Map<string, CollectionDef>();
  for (const p of projections) byName.set(p.collection.name, p.collection);
  return [...byName.values()];
}
