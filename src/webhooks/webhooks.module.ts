/** Webhooks (spec §5.3, §6, §8; docs/webhooks.md): endpoints, durable signed deliveries with retries, the delivery log, and the admin routes of the integration settings. */
import { Module } from '@nestjs/common';
import { IntegrationsModule } from '../integrations/index.js';
import { RedeliverWebhookHandler } from './commands/redeliver-webhook.js';
import { webhookEndpointCommandHandlers } from './commands/webhook-endpoint-commands.js';
import { WebhookDispatcher } from './delivery/webhook-dispatcher.js';
import { WebhookReactor } from './delivery/webhook-reactor.js';
import { WebhooksLifecycle } from './delivery/webhooks.lifecycle.js';
import {
  AdminIntegrationSettingsController,
  AdminMerchantParam,
  AdminWebhookDeliveriesController,
  AdminWebhookEndpointsController,
} from './http/admin-webhooks.controllers.js';
import { WebhookDeliveryQueries, WebhookEndpointQueries } from './read-models/webhook-queries.js';

@Module({
  imports: [IntegrationsModule],
  controllers: [AdminWebhookEndpointsController, AdminIntegrationSettingsController, AdminWebhookDeliveriesController],
  providers: [
    ...webhookEndpointCommandHandlers,
    RedeliverWebhookHandler,
    AdminMerchantParam,
    WebhookEndpointQueries,
    WebhookDeliveryQueries,
    WebhookDispatcher,
    WebhookReactor,
    WebhooksLifecycle,
  ],
})
export class WebhooksModule {}
