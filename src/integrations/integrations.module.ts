/**
 * How the service calls merchants' systems (docs/webhooks.md): their integration settings
 * (client-API URLs, custom headers), the URL and address policy of outbound requests, signed
 * outbound HTTP, and the client-API caller the share and reward flows use.
 */
import { Module } from '@nestjs/common';
import { ClientApiCaller } from './client-api/client-api-caller.js';
import { integrationSettingsCommandHandlers } from './commands/integration-settings-commands.js';
import { OutboundHttp } from './outbound/outbound-http.js';
import { UrlPolicy } from './outbound/url-policy.js';
import { IntegrationSettingsQueries } from './read-models/integration-settings-queries.js';

@Module({
  providers: [...integrationSettingsCommandHandlers, IntegrationSettingsQueries, UrlPolicy, OutboundHttp, ClientApiCaller],
  exports: [ClientApiCaller, IntegrationSettingsQueries, UrlPolicy, OutboundHttp],
})
export class IntegrationsModule {}
