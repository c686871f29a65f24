/** v1 GET /campaigns and v2 GET /widgets, /widgets/{id}: one read model, two presenters. */
import { Controller, Get, Inject, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V1BasicAuthGuard, V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { parseId, requestOrigin } from '../../platform/http/links.js';
import { parseV1Paging, parseV2Paging, v1Search, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { listPage, searchResults, wrapped } from '../../platform/http/response-schemas.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { WidgetQueries } from '../read-models/widget-queries.js';
import { V1CampaignsQueryDto, V2WidgetsQueryDto } from './widgets.dto.js';
import { v1Campaign, v2Widget } from './widget.presenters.js';
import { V1_CAMPAIGN, V2_WIDGET } from './widget.schemas.js';

@ApiTags('v1 campaigns')
@ApiBasicAuth('basic')
@UseGuards(V1BasicAuthGuard)
@Controller('v1/campaigns')
export class V1CampaignsController {
  constructor(private readonly widgets: WidgetQueries) {}

  @Get()
  @ApiOperation({ summary: 'Search campaigns (widget variants)' })
  @ApiOkResponse({ description: 'SearchResults of Campaign', schema: searchResults(V1_CAMPAIGN) })
  @ApiErrorResponses(400, 401)
  async search(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1CampaignsQueryDto) {
    return v1Search(this.widgets, parseV1Paging(query), { merchant_id: merchant.id }, async (docs) => {
      const served = await this.widgets.servedDistributions(docs);
      return docs.map((d) => v1Campaign(d, served.get(d.id)!));
    });
  }
}

@ApiTags('v2 widgets')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2/widgets')
export class V2WidgetsController {
  constructor(
    private readonly widgets: WidgetQueries,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List widget variants' })
  @ApiOkResponse({ description: 'A list page of Widget', schema: listPage(V2_WIDGET) })
  @ApiErrorResponses(400, 401, 403)
  async list(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V2WidgetsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const where: Record<string, Scalar> = { merchant_id: merchant.id };
    if (query.widget_group_id !== undefined) where.widget_group_id = query.widget_group_id;
    if (query.name !== undefined) where.name = query.name;
    const page = await this.widgets.walk(v2WalkQuery(paging, where));
    const served = await this.widgets.servedDistributions(page.docs);
    return v2Walked(request, requestOrigin(request, this.config.publicBaseUrl), page, (d) => v2Widget(d, served.get(d.id)!));
  }

  @Get(':id')
  @ApiOperation({ summary: 'A widget variant' })
  @ApiOkResponse({ description: '`{widget}`', schema: wrapped('widget', V2_WIDGET) })
  @ApiErrorResponses(400, 401, 403, 404)
  async get(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string) {
    const doc = await this.widgets.require(merchant.id, parseId(raw, 'widget'));
    return { widget: v2Widget(doc, (await this.widgets.servedDistributions([doc])).get(doc.id)!) };
  }
}
