import { Module } from '@nestjs/common';
import { WidgetQueries } from './read-models/widget-queries.js';
import { IntegrationsModule } from '../integrations/index.js';
import { widgetCommandHandlers } from './commands/widget-commands.js';
import { AdminWidgetsController } from './http/admin-widgets.controller.js';
import { V1CampaignsController, V2WidgetsController } from './http/widgets.controllers.js';

@Module({
  imports: [IntegrationsModule],
  controllers: [AdminWidgetsController, V1CampaignsController, V2WidgetsController],
  providers: [...widgetCommandHandlers, WidgetQueries],
  exports: [WidgetQueries],
})
export class WidgetsModule {}
