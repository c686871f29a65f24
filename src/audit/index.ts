/** What other features may use of audit (docs/architecture.md): nothing else of it is imported from outside. */
export { auditProjectionsFor } from './audit-storage.js';
export { AuditModule } from './audit.module.js';
export { PointInTimeReadStore } from './point-in-time-read-store.js';
export { redact } from './redaction.js';
export { auditEventIndex } from './sqlite-audit-index.js';
