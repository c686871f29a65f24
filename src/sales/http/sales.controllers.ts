/** v2 purchases, conversions and rewards (spec §4.2; rewards not shown in the spec), and admin reward decisions. */
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AdminGuard, V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, CurrentPrincipal, CustomerTokenAllowed, type MerchantRecord, type Principal } from '../../platform/auth/principal.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { parseId } from '../../platform/http/links.js';
import { parseV2Paging, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { listPage, wrapped } from '../../platform/http/response-schemas.js';
import { MerchantDirectory } from '../../merchants/index.js';
import { DecideRewardCommand } from '../commands/manual-decision.js';
import { SalesQueries } from '../read-models/sales-queries.js';
import { conversionsFilter, purchasesFilter, rewardsFilter, SaleRequests } from './sale-requests.js';
import { ConversionsQueryDto, CreateConversionDto, CreatePurchaseDto, PurchasesQueryDto, RewardDecisionDto, RewardsQueryDto } from './purchases.dto.js';
import { adminReward, v2Conversion, v2Purchase, v2Reward } from './sales.presenters.js';
import { ADMIN_REWARD, V2_CONVERSION, V2_PURCHASE, V2_REWARD } from './sales.schemas.js';

@ApiTags('v2 purchases, conversions, rewards')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2')
export class V2SalesController {
  constructor(
    private readonly requests: SaleRequests,
    private readonly sales: SalesQueries,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Post('purchases')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Record a purchase; a referral_code (or else a coupon_code) attributes it and makes a conversion. 409 when order_id is already used.',
  })
  @ApiCreatedResponse({ description: '`{purchase}`', schema: wrapped('purchase', V2_PURCHASE) })
  @ApiErrorResponses(400, 401, 403, [404, 'Unknown widget_id or customer_id'], [409, 'order_id is already used (no purchase is created)'])
  async createPurchase(@CurrentMerchant() merchant: MerchantRecord, @Body() body: CreatePurchaseDto, @Req() request: FastifyRequest) {
    const purchaseId = await this.requests.recordPurchase(merchant, body);
    return { purchase: v2Purchase(await this.sales.purchase(merchant.id, purchaseId), this.linkFactory.for(request)) };
  }

  @Get('purchases')
  @ApiOperation({ summary: 'List purchases' })
  @ApiOkResponse({ description: 'A list page of Purchase', schema: listPage(V2_PURCHASE) })
  @ApiErrorResponses(400, 401, 403)
  async listPurchases(@CurrentMerchant() merchant: MerchantRecord, @Query() query: PurchasesQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const page = await this.sales.purchases.walk(v2WalkQuery(paging, purchasesFilter({ kind: 'merchant', merchant }, query)));
    const links = this.linkFactory.for(request);
    return v2Walked(request, this.linkFactory.origin(request), page, (d) => v2Purchase(d, links));
  }

  @Get('purchases/:id')
  @ApiOperation({ summary: 'A purchase' })
  @ApiOkResponse({ description: '`{purchase}`', schema: wrapped('purchase', V2_PURCHASE) })
  @ApiErrorResponses(400, 401, 403, 404)
  async getPurchase(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return { purchase: v2Purchase(await this.sales.purchase(merchant.id, parseId(raw, 'purchase')), this.linkFactory.for(request)) };
  }

  @Post('conversions')
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Convert an existing purchase by referral code (wins when it attributes) or coupon code. 404 unknown purchase, 400 no code or none that attributes, 409 already converted.',
  })
  @ApiCreatedResponse({ description: '`{conversion}`', schema: wrapped('conversion', V2_CONVERSION) })
  @ApiErrorResponses(400, 401, 403, [404, 'Unknown purchase_id'], [409, 'The purchase is already converted'])
  async createConversion(@CurrentMerchant() merchant: MerchantRecord, @Body() body: CreateConversionDto, @Req() request: FastifyRequest) {
    const conversionId = await this.requests.convert(merchant, body);
    return { conversion: v2Conversion(await this.sales.conversion(merchant.id, conversionId), this.linkFactory.for(request)) };
  }

  @Get('conversions')
  @CustomerTokenAllowed()
  @ApiOperation({ summary: 'List conversions (a customer token sees those where it is the advocate)' })
  @ApiOkResponse({ description: 'A list page of Conversion', schema: listPage(V2_CONVERSION) })
  @ApiErrorResponses(400, 401, 403)
  async listConversions(@CurrentPrincipal() principal: Principal, @Query() query: ConversionsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const page = await this.sales.conversions.walk(v2WalkQuery(paging, conversionsFilter(principal, query)));
    const links = this.linkFactory.for(request);
    return v2Walked(request, this.linkFactory.origin(request), page, (d) => v2Conversion(d, links));
  }

  @Get('conversions/:id')
  @ApiOperation({ summary: 'A conversion' })
  @ApiOkResponse({ description: '`{conversion}`', schema: wrapped('conversion', V2_CONVERSION) })
  @ApiErrorResponses(400, 401, 403, 404)
  async getConversion(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return { conversion: v2Conversion(await this.sales.conversion(merchant.id, parseId(raw, 'conversion')), this.linkFactory.for(request)) };
  }

  @Get('rewards')
  @CustomerTokenAllowed()
  @ApiOperation({ summary: 'List rewards (a customer token sees its own as advocate)' })
  @ApiOkResponse({ description: 'A list page of Reward', schema: listPage(V2_REWARD) })
  @ApiErrorResponses(400, 401, 403)
  async listRewards(@CurrentPrincipal() principal: Principal, @Query() query: RewardsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const page = await this.sales.rewards.walk(v2WalkQuery(paging, rewardsFilter(principal, query)));
    const links = this.linkFactory.for(request);
    return v2Walked(request, this.linkFactory.origin(request), page, (d) => v2Reward(d, links));
  }

  @Get('rewards/:id')
  @ApiOperation({ summary: 'A reward' })
  @ApiOkResponse({ description: '`{reward}`', schema: wrapped('reward', V2_REWARD) })
  @ApiErrorResponses(400, 401, 403, 404)
  async getReward(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return { reward: v2Reward(await this.sales.reward(merchant.id, parseId(raw, 'reward')), this.linkFactory.for(request)) };
  }
}

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id/rewards')
export class AdminRewardsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly sales: SalesQueries,
    private readonly merchants: MerchantDirectory,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Get(':reward_id')
  @ApiOperation({ summary: 'A reward with its decision history and validation attempts' })
  @ApiOkResponse({ description: '`{reward}`: the admin view', schema: wrapped('reward', ADMIN_REWARD) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or reward'))
  async get(@Param('merchant_id') raw: string, @Param('reward_id') rawReward: string, @Req() request: FastifyRequest) {
    const merchantId = await this.merchant(raw);
    return { reward: adminReward(await this.sales.reward(merchantId, parseId(rawReward, 'reward')), this.linkFactory.for(request)) };
  }

  @Post(':reward_id/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve a pending or rejected reward by hand' })
  @ApiOkResponse({ description: '`{reward}` as decided (an approved one is answered as it is)', schema: wrapped('reward', ADMIN_REWARD) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or reward'))
  async approve(@Param('merchant_id') raw: string, @Param('reward_id') rawReward: string, @Body() body: RewardDecisionDto, @Req() request: FastifyRequest) {
    return this.decide(raw, rawReward, true, body, request);
  }

  @Post(':reward_id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a pending reward by hand (409 for an approved one)' })
  @ApiOkResponse({ description: '`{reward}` as decided (a rejected one is answered as it is)', schema: wrapped('reward', ADMIN_REWARD) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or reward'), [
    409,
    'The reward is approved: only pending or rejected rewards are decided by hand',
  ])
  async reject(@Param('merchant_id') raw: string, @Param('reward_id') rawReward: string, @Body() body: RewardDecisionDto, @Req() request: FastifyRequest) {
    return this.decide(raw, rawReward, false, body, request);
  }

  private async decide(raw: string, rawReward: string, approve: boolean, body: RewardDecisionDto, request: FastifyRequest) {
    const merchantId = await this.merchant(raw);
    const rewardId = parseId(rawReward, 'reward');
    await this.commands.execute(new DecideRewardCommand({ merchantId, rewardId, approve, by: body.by, reason: body.reason ?? null }));
    return { reward: adminReward(await this.sales.reward(merchantId, rewardId), this.linkFactory.for(request)) };
  }

  private async merchant(raw: string): Promise<number> {
    return (await this.merchants.requireFromPath(raw)).id;
  }
}
