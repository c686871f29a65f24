/** What other features may use of operations (docs/architecture.md): nothing else of it is imported from outside. */
export { MetricsModule, OperationsModule } from './operations.module.js';
export { serviceProjectionsFor } from './service-projections.js';
export { createServiceEventStore } from './service-storage.js';
export { servicePersonalData } from './personal-data.js';
