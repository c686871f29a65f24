/** What other features may use of privacy (docs/architecture.md): nothing else of it is imported from outside. */
export { UserDataDeletionProcessor } from './commands/user-data-deletion.js';
export type { UserDataDeletionCompleted } from './domain/user-data-deletion.js';
export { privacyPersonalData } from './domain/personal-data.js';
export { PrivacyModule } from './privacy.module.js';
export { deletionJobsProjection } from './read-models/deletion-jobs.projection.js';
