/** What other features may use of shares (docs/architecture.md): nothing else of it is imported from outside. */
export { CONVERTED_RECIPIENTS, CreateShareCommand, ReminderScheduler } from './commands/share-commands.js';
export type { ConvertedRecipients } from './commands/share-commands.js';
export { sharePersonalData } from './domain/personal-data.js';
export type { ShareCreated } from './domain/share-events.js';
export { shareData } from './domain/share-payload.js';
export type { PayloadOptions } from './domain/share-payload.js';
export { ShareRequests } from './http/share-requests.js';
export { CreateShareDto } from './http/shares.dto.js';
export { ShareActivity } from './read-models/share-activity.js';
export { ShareQueries } from './read-models/share-queries.js';
export { remindersDueProjection, shareEmailsDueProjection } from './read-models/share-queues.js';
export { reminderEmailsProjection, sharesProjection } from './read-models/shares.projection.js';
export { SharesModule } from './shares.module.js';
