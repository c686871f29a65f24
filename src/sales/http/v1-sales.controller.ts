/**
 * v1 purchases, conversions and rewards (spec §4.1: "not shown"; docs/api-decisions.md): the
 * v2 routes' bodies and filters in v1's words (campaign_id for widget_id), v1's Basic auth, offset
 * paging and records, answered bare.
 */
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V1BasicAuthGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { asWidgetFilter, withWidgetId } from '../../platform/http/list-query.dto.js';
import { parseId } from '../../platform/http/links.js';
import { parseV1Paging, v1Search } from '../../platform/http/paging.js';
import { searchResults } from '../../platform/http/response-schemas.js';
import { V1Embedding, V1Embeds } from '../../customers/index.js';
import { ConversionDoc } from '../read-models/conversions.projection.js';
import { SalesQueries } from '../read-models/sales-queries.js';
import { CreateConversionDto, V1ConversionsQueryDto, V1CreatePurchaseDto, V1PurchasesQueryDto, V1RewardsQueryDto } from './purchases.dto.js';
import { conversionsFilter, purchasesFilter, rewardsFilter, SaleRequests } from './sale-requests.js';
import { v1Conversion, v1Purchase, v1Reward } from './sales.presenters.js';
import { V1_CONVERSION, V1_PURCHASE, V1_REWARD } from './sales.schemas.js';

@ApiTags('v1 purchases, conversions, rewards')
@ApiBasicAuth('basic')
@UseGuards(V1BasicAuthGuard)
@Controller('v1')
export class V1SalesController {
  constructor(
    private readonly requests: SaleRequests,
    private readonly sales: SalesQueries,
    private readonly embedding: V1Embedding,
  ) {}

  @Post('purchases')
  @HttpCode(201)
  @ApiOperation({ summary: 'Record a purchase (the body of POST /v2/purchases, with campaign_id for widget_id); 409 when order_id is already used' })
  @ApiCreatedResponse({ description: 'Purchase', schema: V1_PURCHASE })
  @ApiErrorResponses(400, 401, [404, 'Unknown campaign_id or customer_id'], [409, 'order_id is already used (no purchase is created)'])
  async createPurchase(@CurrentMerchant() merchant: MerchantRecord, @Body() body: V1CreatePurchaseDto, @Req() request: FastifyRequest) {
    const purchaseId = await this.requests.recordPurchase(merchant, withWidgetId(body), 'campaign');
    return v1Purchase(await this.sales.purchase(merchant.id, purchaseId), this.embedding.for(merchant.id, request));
  }

  @Get('purchases')
  @ApiOperation({ summary: 'Search purchases (filters of GET /v2/purchases)' })
  @ApiOkResponse({ description: 'SearchResults of Purchase', schema: searchResults(V1_PURCHASE) })
  @ApiErrorResponses(400, 401)
  async searchPurchases(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1PurchasesQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV1Paging(query);
    const embeds = this.embedding.for(merchant.id, request);
    return v1Search(this.sales.purchases, paging, purchasesFilter({ kind: 'merchant', merchant }, asWidgetFilter(query)), (docs) =>
      Promise.all(docs.map((d) => v1Purchase(d, embeds))),
    );
  }

  @Get('purchases/:id')
  @ApiOperation({ summary: 'A purchase' })
  @ApiOkResponse({ description: 'Purchase', schema: V1_PURCHASE })
  @ApiErrorResponses(400, 401, 404)
  async getPurchase(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return v1Purchase(await this.sales.purchase(merchant.id, parseId(raw, 'purchase')), this.embedding.for(merchant.id, request));
  }

  @Post('conversions')
  @HttpCode(201)
  @ApiOperation({ summary: 'Convert an existing purchase (the body of POST /v2/conversions)' })
  @ApiCreatedResponse({ description: 'Conversion', schema: V1_CONVERSION })
  @ApiErrorResponses(400, 401, [404, 'Unknown purchase_id'], [409, 'The purchase is already converted'])
  async createConversion(@CurrentMerchant() merchant: MerchantRecord, @Body() body: CreateConversionDto, @Req() request: FastifyRequest) {
    const conversionId = await this.requests.convert(merchant, body);
    return this.presentConversion(merchant, await this.sales.conversion(merchant.id, conversionId), this.embedding.for(merchant.id, request));
  }

  @Get('conversions')
  @ApiOperation({ summary: 'Search conversions (filters of GET /v2/conversions)' })
  @ApiOkResponse({ description: 'SearchResults of Conversion', schema: searchResults(V1_CONVERSION) })
  @ApiErrorResponses(400, 401)
  async searchConversions(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1ConversionsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV1Paging(query);
    const embeds = this.embedding.for(merchant.id, request);
    return v1Search(this.sales.conversions, paging, conversionsFilter({ kind: 'merchant', merchant }, asWidgetFilter(query)), (docs) =>
      Promise.all(docs.map((d) => this.presentConversion(merchant, d, embeds))),
    );
  }

  @Get('conversions/:id')
  @ApiOperation({ summary: 'A conversion' })
  @ApiOkResponse({ description: 'Conversion', schema: V1_CONVERSION })
  @ApiErrorResponses(400, 401, 404)
  async getConversion(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return this.presentConversion(merchant, await this.sales.conversion(merchant.id, parseId(raw, 'conversion')), this.embedding.for(merchant.id, request));
  }

  @Get('rewards')
  @ApiOperation({ summary: 'Search rewards (filters of GET /v2/rewards)' })
  @ApiOkResponse({ description: 'SearchResults of Reward', schema: searchResults(V1_REWARD) })
  @ApiErrorResponses(400, 401)
  async searchRewards(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1RewardsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV1Paging(query);
    const embeds = this.embedding.for(merchant.id, request);
    return v1Search(this.sales.rewards, paging, rewardsFilter({ kind: 'merchant', merchant }, asWidgetFilter(query)), (docs) =>
      Promise.all(docs.map((d) => v1Reward(d, embeds))),
    );
  }

  @Get('rewards/:id')
  @ApiOperation({ summary: 'A reward' })
  @ApiOkResponse({ description: 'Reward', schema: V1_REWARD })
  @ApiErrorResponses(400, 401, 404)
  async getReward(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return v1Reward(await this.sales.reward(merchant.id, parseId(raw, 'reward')), this.embedding.for(merchant.id, request));
  }

  private async presentConversion(merchant: MerchantRecord, doc: ConversionDoc, embeds: V1Embeds) {
    return v1Conversion(doc, await this.sales.purchase(merchant.id, doc.purchase_id), embeds);
  }
}
