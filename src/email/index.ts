/** What other features may use of email (docs/architecture.md): nothing else of it is imported from outside. */
export type { EmailMessage, EmailQueuedFor } from './domain/email-events.js';
export { emailPersonalData } from './domain/personal-data.js';
export { EmailModule } from './email.module.js';
export { Mailer } from './mailer.js';
export { outboxProjection } from './read-models/outbox.projection.js';
