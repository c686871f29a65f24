/**
 * Every projection the runner feeds: the feature read models (src/projections.ts), plus the
 * audit index over every event when the event store does not keep that index itself (it does on
 * the embedded SQLite store: src/audit/audit-storage.ts). The application, rebuilds and
 * point-in-time reads all use this list.
 */
import { auditProjectionsFor } from '../audit/index.js';
import { EventStore } from '../platform/event-store/event-store.js';
import { AnyProjection } from '../platform/projections/projection.js';
import { allProjections } from '../projections.js';

export function serviceProjectionsFor(eventStore: EventStore): AnyProjection[] {
  return [...allProjections, ...auditProjectionsFor(eventStore)];
}
