/** What other features may use of webhooks (docs/architecture.md): nothing else of it is imported from outside. */
export { webhookPersonalData } from './domain/personal-data.js';
export { dueDeliveriesProjection, webhookDeliveriesProjection } from './read-models/webhook-deliveries.projection.js';
export { webhookEndpointsProjection } from './read-models/webhook-endpoints.projection.js';
export { WebhooksModule } from './webhooks.module.js';
