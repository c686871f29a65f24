/**
 * Every projection the runner feeds: the feature read models (src/projections.ts) plus the audit
 * index over every event. The application, rebuilds and point-in-time reads all use this list.
 */
import { auditProjections } from '../audit/audit-index.projection.js';
import { Projection } from '../platform/projections/projection.js';
import { allProjections } from '../projections.js';

export const serviceProjections: Projection[] = [...allProjections, ...auditProjections];
