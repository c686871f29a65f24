/**
 * Rebuilding read models from the event store (npm run projections:rebuild, and the tests that
 * hold a rebuild equal to the models the live runner built event by event).
 */
import { EventStore } from '../platform/event-store/event-store.js';
import { AnyProjection, collectionsOf } from '../platform/projections/projection.js';
import { replay, ReplayProgress } from '../platform/projections/projection-runner.js';
import { ReadDoc, ReadStore } from '../platform/read-store/read-store.js';
import { ProgressOutput, ProgressReport } from './progress.js';
import { redact } from '../audit/index.js';

export interface RebuildResult extends ReplayProgress {
  /** Documents per collection after the rebuild. */
  documents: Record<string, number>;
}

/**
 * Every document of every collection, each collection sorted by `_id`, with credentials (merchants'
 * secret keys, custom header values such as Authorization) redacted as in the audit trail: a dump
 * is made to be compared and passed around, and must not carry them.
 */
export async function dumpReadModels(store: ReadStore, projections: readonly AnyProjection[]): Promise<Record<string, ReadDoc[]>> {
  const out: Record<string, ReadDoc[]> = {};
  for (const def of collectionsOf(projections)) {
    const docs = await store.collection(def).list({ limit: Number.MAX_SAFE_INTEGER });
    out[def.name] = [...docs].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)).map((doc) => redact(doc) as ReadDoc);
  }
  return out;
}

/**
 * Replays the log up to its current head into `store` (which the caller has emptied), showing
 * progress on `output`, and counts the documents each collection ends with.
 */
export async function rebuildReadModels(
  events: EventStore,
  store: ReadStore,
  projections: readonly AnyProjection[],
  output?: ProgressOutput,
): Promise<RebuildResult> {
  const head = await events.headPosition();
  const report = output ? new ProgressReport(output, { from: 0n, to: head }) : undefined;
  const done = await replay(events, store, projections, { until: head, onProgress: (p) => report?.update(p) });
  report?.finish(done);
  const documents: Record<string, number> = {};
  for (const def of collectionsOf(projections)) documents[def.name] = await store.collection(def).count({});
  return { ...done, documents };
}
