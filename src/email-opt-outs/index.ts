/** What other features may use of email-opt-outs (docs/architecture.md): nothing else of it is imported from outside. */
export { OptOutJobProcessor, SubmitOptOutJobCommand } from './commands/opt-out-commands.js';
export type { EmailOptedOut } from './domain/email-opt-out-events.js';
export { normaliseEmail, optOutStream } from './domain/email-opt-out.js';
export { emailOptOutPersonalData } from './domain/personal-data.js';
export { EmailOptOutsModule } from './email-opt-outs.module.js';
export { OptOutQueries } from './read-models/opt-out-queries.js';
export { optOutJobsProjection, optOutsProjection } from './read-models/opt-outs.projection.js';
