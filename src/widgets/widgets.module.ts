import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { widgetCommandHandlers } from './commands/widget-commands.js';
import { AdminWidgetsController } from './http/admin-widgets.controller.js';
import { V1CampaignsController, V2WidgetsController } from './http/widgets.controllers.js';

@Module({ imports: [WebhooksModule], controllers: [AdminWidgetsController, V1CampaignsController, V2WidgetsController], providers: [...widgetCommandHandlers] })
export class WidgetsModule {}
