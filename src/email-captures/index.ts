/** What other features may use of email-captures (docs/architecture.md): nothing else of it is imported from outside. */
export { CaptureEmailCommand } from './commands/capture-email.js';
export type { EmailCaptured } from './domain/email-capture-events.js';
export { emailCaptureDecider, emailCaptureStream } from './domain/email-capture.js';
export { emailCapturePersonalData } from './domain/personal-data.js';
export { EmailCapturesModule } from './email-captures.module.js';
export { emailCapturesProjection } from './read-models/email-captures.projection.js';
