/**
 * A due queue: a read model holding one document per thing a poller owes work to (a reward to
 * validate, a share's instructions to ask for, a reminder to send), ordered by `due_at`, the time
 * that work is next due, so "what is due now" is one ordered range read, earliest first (the
 * webhook dispatcher's `webhook_due_at` is built the same way).
 *
 * A poller that walked the subjects themselves (every pending reward, in the order they were
 * made, up to a limit) paid for every one not yet due at every tick, and past that limit it
 * starved: 10,000 rewards whose merchant's endpoint was down, each waiting hours for its next
 * retry, kept any later reward of any merchant from being looked at.
 */
import { docKey } from '../ids.js';
import { DomainEvent } from '../event-store/event-store.js';
import { ReadCollection, ReadDoc } from '../read-store/read-store.js';
import { HandlesAll, Projection, ProjectionDef, ProjectedOf } from './projection.js';

export interface DueDoc extends ReadDoc {
  /** When the work is next due (ISO 8601, as every time in the events): the collection's order. */
  due_at: string;
  /** When the subject entered the queue (its first due time). */
  created_at: string;
  /** The subject's id (the reward's, the share's). */
  id: number;
  /** The stream of the event that last scheduled the work: the subject's own. */
  stream: string;
}

/** `E`: the union of the events the queue reads (narrowed by `type`, as projections do); `H` names each of its types. */
export interface DueQueueDef<E extends DomainEvent, H extends readonly E['type'][]> {
  name: string;
  handles: H;
  subject(event: ProjectedOf<E>): number;
  /**
   * When the subject's work is next due after `event`: a time, `null` when nothing is owed any
   * more (the document goes), `undefined` when the event leaves the queue as it is.
   */
  dueAfter(event: ProjectedOf<E>, queued: DueDoc | null): string | null | undefined;
}

/** A due queue over the union `E`, checked as defineProjection checks a projection. */
export function dueQueueProjection<E extends DomainEvent>() {
  return <const H extends readonly E['type'][]>(def: DueQueueDef<E, H> & HandlesAll<E, H>): Projection<DueDoc> => {
    const queue: ProjectionDef<DueDoc, E, H> = {
      name: def.name,
      collection: { name: def.name, indexes: [], orderBy: 'due_at' },
      handles: def.handles,
      keys: (event) => [docKey(def.subject(event))],
      evolve(doc, event, key) {
        const at = def.dueAfter(event, doc);
        if (at === undefined) return doc;
        if (at === null) return null;
        return { _id: key, due_at: at, created_at: doc?.created_at ?? at, id: def.subject(event), stream: event.streamName };
      },
    };
    return queue;
  };
}

/**
 * When a call retried on a schedule (a merchant's validation or share-instructions callback) is
 * next due after an attempt: at the next attempt the attempt scheduled, or at once when it
 * scheduled none (it succeeded, and its outcome is still to be recorded); a subject not queued
 * any more stays out.
 */
export function dueAfterAttempt(attempt: { at: string; nextAttemptAt: string | null }, queued: DueDoc | null): string | undefined {
  return queued ? (attempt.nextAttemptAt ?? attempt.at) : undefined;
}

/** Due documents a poller takes in one pass, at most (the rest wait for its next pass, earliest due first). */
export const DUE_PER_PASS = 10_000;

/**
 * The queue's documents due at or before `now`, earliest first, at most `limit` of them. Times
 * compare as text, as the store orders them: ISO 8601 in UTC with milliseconds, as
 * `Date.toISOString` writes every time of the events (years 0 to 9999).
 */
export function dueBy(queue: ReadCollection<DueDoc>, now: Date, limit: number): Promise<DueDoc[]> {
  return queue.list({ before: new Date(now.getTime() + 1).toISOString(), limit });
}
