/** What other features may use of integrations (docs/architecture.md): nothing else of it is imported from outside. */
export { ClientApiCaller } from './client-api/client-api-caller.js';
export { ConfigureClientApiCommand, ConfigureCustomHeadersCommand } from './commands/integration-settings-commands.js';
export { checkWebhookUrl } from './domain/outbound-url.js';
export { retrySchedule, retryWindowClosed } from './domain/retry.js';
export { requestHeaders } from './domain/signing.js';
export { IntegrationsModule } from './integrations.module.js';
export { OutboundHttp, failureReason } from './outbound/outbound-http.js';
export { UrlPolicy } from './outbound/url-policy.js';
export { IntegrationSettingsQueries } from './read-models/integration-settings-queries.js';
export { integrationSettingsProjection } from './read-models/integration-settings.projection.js';
export type { IntegrationSettingsDoc } from './read-models/integration-settings.projection.js';
