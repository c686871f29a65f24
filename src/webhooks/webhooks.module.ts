/**
 * Webhooks (spec §5.3, §6, §8; docs/webhooks.md): endpoint and integration configuration,
 * durable signed deliveries with retries, the delivery log, and the client-API caller that the
 * share and reward flows use (exported with the query service for the merchant's URLs).
 */
import { Module } from '@nestjs/common';
import { ClientApiCaller } from '../integrations/client-api/client-api-caller.js';
import { integrationSettingsCommandHandlers } from '../integrations/commands/integration-settings-commands.js';
import { RedeliverWebhookHandler } from './commands/redeliver-webhook.js';
import { webhookEndpointCommandHandlers } from './commands/webhook-endpoint-commands.js';
import { OutboundHttp } from '../integrations/outbound/outbound-http.js';
import { UrlPolicy } from '../integrations/outbound/url-policy.js';
import { WebhookDispatcher } from './delivery/webhook-dispatcher.js';
import { WebhookReactor } from './delivery/webhook-reactor.js';
import { WebhooksLifecycle } from './delivery/webhooks.lifecycle.js';
import {
  AdminIntegrationSettingsController,
  AdminMerchantParam,
  AdminWebhookDeliveriesController,
  AdminWebhookEndpointsController,
} from './http/admin-webhooks.controllers.js';
import { IntegrationSettingsQueries, WebhookDeliveryQueries, WebhookEndpointQueries } from './read-models/webhook-queries.js';

@Module({
  controllers: [AdminWebhookEndpointsController, AdminIntegrationSettingsController, AdminWebhookDeliveriesController],
  providers: [
    ...webhookEndpointCommandHandlers,
    ...integrationSettingsCommandHandlers,
    RedeliverWebhookHandler,
    AdminMerchantParam,
    WebhookEndpointQueries,
    IntegrationSettingsQueries,
    WebhookDeliveryQueries,
    UrlPolicy,
    OutboundHttp,
    WebhookDispatcher,
    WebhookReactor,
    ClientApiCaller,
    WebhooksLifecycle,
  ],
  exports: [ClientApiCaller, IntegrationSettingsQueries, UrlPolicy],
})
export class WebhooksModule {}
