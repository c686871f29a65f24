/** v2 purchases, conversions and rewards (spec §4.2; rewards not shown in the spec), and admin reward decisions. */
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AdminGuard, V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, CurrentPrincipal, CustomerTokenAllowed, type MerchantRecord, type Principal } from '../../platform/auth/principal.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { advocateListFilter } from '../../platform/http/list-query.dto.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { parseId } from '../../platform/http/links.js';
import { parseV2Paging, v2ListQuery, v2Page } from '../../platform/http/paging.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { CustomerQueries } from '../../customers/read-models/customer-queries.js';
import { MerchantDirectory } from '../../merchants/read-models/merchant-lookup.js';
import { DecideRewardCommand } from '../../rewards/commands/manual-decision.js';
import { WidgetQueries } from '../../widgets/read-models/widget-queries.js';
import { AttributeConversionCommand, RecordPurchaseCommand } from '../commands/purchase-commands.js';
import { SalesQueries } from '../read-models/sales-queries.js';
import { ConversionsQueryDto, CreateConversionDto, CreatePurchaseDto, PurchasesQueryDto, RewardDecisionDto, RewardsQueryDto } from './purchases.dto.js';
import { adminReward, v2Conversion, v2Purchase, v2Reward } from './sales.presenters.js';

@ApiTags('v2 purchases, conversions, rewards')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2')
export class V2SalesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly sales: SalesQueries,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Post('purchases')
  @HttpCode(201)
  @ApiOperation({ summary: 'Record a purchase; a referral_code (or else a coupon_code) attributes it and makes a conversion. 409 when order_id is already used.' })
  async createPurchase(@CurrentMerchant() merchant: MerchantRecord, @Body() body: CreatePurchaseDto, @Req() request: FastifyRequest) {
    const customerId = body.customer_id !== undefined ? Number(body.customer_id) : null;
    const widgetId = body.widget_id !== undefined ? Number(body.widget_id) : null;
    if (customerId !== null && !(await this.customers.byId(merchant.id, customerId))) throw new NotFoundError([`customer ${customerId} not found`]);
    if (widgetId !== null) await this.widgets.require(merchant.id, widgetId);
    const purchaseId = await this.commands.execute(
      new RecordPurchaseCommand({
        merchantId: merchant.id,
        orderId: body.order_id,
        paymentAmount: body.payment_amount ?? null,
        newCustomer: body.new_customer ?? null,
        couponCode: body.coupon_code ?? null,
        referralCode: body.referral_code ?? null,
        emailAddress: body.email_address ?? null,
        ipAddress: body.ip_address ?? null,
        referrer: body.referrer ?? null,
        customerId,
        widgetId,
        products: (body.products ?? []).map((p) => ({ sku: p.sku, quantity: p.quantity, price: p.price })),
      }),
    );
    return { purchase: v2Purchase(await this.sales.purchase(merchant.id, purchaseId), this.linkFactory.for(request)) };
  }

  @Get('purchases')
  @ApiOperation({ summary: 'List purchases' })
  async listPurchases(@CurrentMerchant() merchant: MerchantRecord, @Query() query: PurchasesQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const where = advocateListFilter({ kind: 'merchant', merchant }, query, 'customer_id');
    if (query.order_id !== undefined) where.order_id = query.order_id;
    const docs = await this.sales.purchases.list(v2ListQuery(paging, where));
    const links = this.linkFactory.for(request);
    return v2Page(request, this.linkFactory.origin(request), paging, docs, (d) => v2Purchase(d, links));
  }

  @Get('purchases/:id')
  @ApiOperation({ summary: 'A purchase' })
  async getPurchase(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return { purchase: v2Purchase(await this.sales.purchase(merchant.id, parseId(raw, 'purchase')), this.linkFactory.for(request)) };
  }

  @Post('conversions')
  @HttpCode(201)
  @ApiOperation({ summary: 'Convert an existing purchase by referral code (wins when it attributes) or coupon code. 404 unknown purchase, 400 no code or none that attributes, 409 already converted.' })
  async createConversion(@CurrentMerchant() merchant: MerchantRecord, @Body() body: CreateConversionDto, @Req() request: FastifyRequest) {
    if (body.referral_code === undefined && body.coupon_code === undefined) {
      throw new BadRequestError([{ property: 'referral_code', code: 'missing', message: 'referral_code or coupon_code is required' }]);
    }
    const conversionId = await this.commands.execute(
      new AttributeConversionCommand(merchant.id, Number(body.purchase_id), body.referral_code ?? null, body.coupon_code ?? null),
    );
    return { conversion: v2Conversion(await this.sales.conversion(merchant.id, conversionId), this.linkFactory.for(request)) };
  }

  @Get('conversions')
  @CustomerTokenAllowed()
  @ApiOperation({ summary: 'List conversions (a customer token sees those where it is the advocate)' })
  async listConversions(@CurrentPrincipal() principal: Principal, @Query() query: ConversionsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const where = advocateListFilter(principal, query, 'advocate_customer_id');
    if (query.email_address !== undefined) where.advocate_email_lc = query.email_address.toLowerCase();
    const docs = await this.sales.conversions.list(v2ListQuery(paging, where));
    const links = this.linkFactory.for(request);
    return v2Page(request, this.linkFactory.origin(request), paging, docs, (d) => v2Conversion(d, links));
  }

  @Get('conversions/:id')
  @ApiOperation({ summary: 'A conversion' })
  async getConversion(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return { conversion: v2Conversion(await this.sales.conversion(merchant.id, parseId(raw, 'conversion')), this.linkFactory.for(request)) };
  }

  @Get('rewards')
  @CustomerTokenAllowed()
  @ApiOperation({ summary: 'List rewards (a customer token sees its own as advocate)' })
  async listRewards(@CurrentPrincipal() principal: Principal, @Query() query: RewardsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const where = advocateListFilter(principal, query, 'advocate_customer_id');
    if (query.status !== undefined) where.status = query.status;
    const docs = await this.sales.rewards.list(v2ListQuery(paging, where));
    const links = this.linkFactory.for(request);
    return v2Page(request, this.linkFactory.origin(request), paging, docs, (d) => v2Reward(d, links));
  }

  @Get('rewards/:id')
  @ApiOperation({ summary: 'A reward' })
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
  async get(@Param('merchant_id') raw: string, @Param('reward_id') rawReward: string, @Req() request: FastifyRequest) {
    const merchantId = await this.merchant(raw);
    return { reward: adminReward(await this.sales.reward(merchantId, parseId(rawReward, 'reward')), this.linkFactory.for(request)) };
  }

  @Post(':reward_id/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve a pending or rejected reward by hand' })
  async approve(@Param('merchant_id') raw: string, @Param('reward_id') rawReward: string, @Body() body: RewardDecisionDto, @Req() request: FastifyRequest) {
    return this.decide(raw, rawReward, true, body, request);
  }

  @Post(':reward_id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a pending reward by hand (409 for an approved one)' })
  async reject(@Param('merchant_id') raw: string, @Param('reward_id') rawReward: string, @Body() body: RewardDecisionDto, @Req() request: FastifyRequest) {
    return this.decide(raw, rawReward, false, body, request);
  }

  private async decide(raw: string, rawReward: string, approve: boolean, body: RewardDecisionDto, request: FastifyRequest) {
    const merchantId = await this.merchant(raw);
    const rewardId = parseId(rawReward, 'reward');
    await this.commands.execute(new DecideRewardCommand(merchantId, rewardId, approve, body.by, body.reason ?? null));
    return { reward: adminReward(await this.sales.reward(merchantId, rewardId), this.linkFactory.for(request)) };
  }

  private async merchant(raw: string): Promise<number> {
    return (await this.merchants.requireFromPath(raw)).id;
  }
}
