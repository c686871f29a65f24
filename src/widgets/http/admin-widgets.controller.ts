/** Admin: a merchant's widget variants (create, read, list, change). */
import { Body, Controller, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../../platform/auth/guards.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { parseId } from '../../platform/http/links.js';
import { arrayOf, object, wrapped } from '../../platform/http/response-schemas.js';
import { MerchantDirectory } from '../../merchants/index.js';
import { ChangeWidgetCommand, CreateWidgetCommand } from '../commands/widget-commands.js';
import { WidgetQueries } from '../read-models/widget-queries.js';
import { CreateWidgetDto, UpdateWidgetDto } from './admin-widgets.dto.js';
import { adminWidget, settingsFromDto } from './widget.presenters.js';
import { ADMIN_WIDGET } from './widget.schemas.js';

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
  @ApiCreatedResponse({ description: '`{widget}`: the admin view', schema: wrapped('widget', ADMIN_WIDGET) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async create(@Param('merchant_id') rawMerchant: string, @Body() body: CreateWidgetDto) {
    const merchantId = await this.merchant(rawMerchant);
    const settings = settingsFromDto(body) as ReturnType<typeof settingsFromDto> & { name: string };
    const widgetId = await this.commands.execute(new CreateWidgetCommand({ merchantId, settings }));
    return { widget: adminWidget(await this.widgets.require(merchantId, widgetId)) };
  }

  @Get()
  @ApiOperation({ summary: "All of a merchant's widget variants (admin view, oldest first)" })
  @ApiOkResponse({ description: '`{widgets}`: the variants, oldest first, unpaged (the first 10,000)', schema: object({ widgets: arrayOf(ADMIN_WIDGET) }) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async list(@Param('merchant_id') rawMerchant: string) {
    const merchantId = await this.merchant(rawMerchant);
    const docs = await this.widgets.list({ where: { merchant_id: merchantId }, limit: 10_000 });
    return { widgets: docs.map(adminWidget) };
  }

  @Get(':widget_id')
  @ApiOperation({ summary: 'A widget variant with its reward rules' })
  @ApiOkResponse({ description: '`{widget}`: the admin view', schema: wrapped('widget', ADMIN_WIDGET) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or widget'))
  async get(@Param('merchant_id') rawMerchant: string, @Param('widget_id') rawWidget: string) {
    const merchantId = await this.merchant(rawMerchant);
    return { widget: adminWidget(await this.widgets.require(merchantId, parseId(rawWidget, 'widget'))) };
  }

  @Patch(':widget_id')
  @ApiOperation({ summary: 'Change a widget variant: publish, activate, archive, crown champion, reward rules' })
  @ApiOkResponse({ description: '`{widget}` as changed', schema: wrapped('widget', ADMIN_WIDGET) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or widget'))
  async update(@Param('merchant_id') rawMerchant: string, @Param('widget_id') rawWidget: string, @Body() body: UpdateWidgetDto) {
    const merchantId = await this.merchant(rawMerchant);
    const widgetId = parseId(rawWidget, 'widget');
    await this.widgets.require(merchantId, widgetId);
    await this.commands.execute(new ChangeWidgetCommand({ merchantId, widgetId, changes: settingsFromDto(body) }));
    return { widget: adminWidget(await this.widgets.require(merchantId, widgetId)) };
  }

  private async merchant(raw: string): Promise<number> {
    return (await this.merchants.requireFromPath(raw)).id;
  }
}
