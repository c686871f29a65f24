/** Admin: a merchant's widget variants (create, read, list, change). */
import { Body, Controller, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../../platform/auth/guards.js';
import { NotFoundError } from '../../platform/errors.js';
import { parseId } from '../../platform/http/links.js';
import { MerchantDirectory } from '../../merchants/read-models/merchant-lookup.js';
import { ChangeWidgetCommand, CreateWidgetCommand } from '../commands/widget-commands.js';
import { WidgetQueries } from '../read-models/widget-queries.js';
import { CreateWidgetDto, UpdateWidgetDto } from './admin-widgets.dto.js';
import { adminWidget, settingsFromDto } from './widget.presenters.js';

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id/widgets')
export class AdminWidgetsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly widgets: WidgetQueries,
    private readonly merchants: MerchantDirectory,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a widget variant' })
  async create(@Param('merchant_id') rawMerchant: string, @Body() body: CreateWidgetDto) {
    const merchantId = await this.merchant(rawMerchant);
    const settings = settingsFromDto(body) as ReturnType<typeof settingsFromDto> & { name: string };
    const widgetId = await this.commands.execute(new CreateWidgetCommand(merchantId, settings));
    return { widget: adminWidget(await this.widgets.require(merchantId, widgetId)) };
  }

  @Get()
  @ApiOperation({ summary: "All of a merchant's widget variants (admin view, oldest first)" })
  async list(@Param('merchant_id') rawMerchant: string) {
    const merchantId = await this.merchant(rawMerchant);
    const docs = await this.widgets.list({ where: { merchant_id: merchantId }, limit: 10_000 });
    return { widgets: docs.map(adminWidget) };
  }

  @Get(':widget_id')
  @ApiOperation({ summary: 'A widget variant with its reward rules' })
  async get(@Param('merchant_id') rawMerchant: string, @Param('widget_id') rawWidget: string) {
    const merchantId = await this.merchant(rawMerchant);
    return { widget: adminWidget(await this.widgets.require(merchantId, parseId(rawWidget, 'widget'))) };
  }

  @Patch(':widget_id')
  @ApiOperation({ summary: 'Change a widget variant: publish, activate, archive, crown champion, reward rules' })
  async update(@Param('merchant_id') rawMerchant: string, @Param('widget_id') rawWidget: string, @Body() body: UpdateWidgetDto) {
    const merchantId = await this.merchant(rawMerchant);
    const widgetId = parseId(rawWidget, 'widget');
    await this.widgets.require(merchantId, widgetId);
    await this.commands.execute(new ChangeWidgetCommand(merchantId, widgetId, settingsFromDto(body)));
    return { widget: adminWidget(await this.widgets.require(merchantId, widgetId)) };
  }

  private async merchant(raw: string): Promise<number> {
    return (await this.merchants.requireFromPath(raw)).id;
  }
}
