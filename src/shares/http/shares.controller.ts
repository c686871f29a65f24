/** v2 shares (email shares) and reminder emails (spec §4.2). */
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V2TokenGuard } from '../../platform/auth/guards.js';
import {
  CurrentMerchant,
  CurrentPrincipal,
  CustomerTokenAllowed,
  type MerchantRecord,
  type Principal,
  requireOwnCustomer,
} from '../../platform/auth/principal.js';
import { ForbiddenError } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { advocateListFilter, V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { parseId } from '../../platform/http/links.js';
import { parseV2Paging, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { listPage, wrapped } from '../../platform/http/response-schemas.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { ShareQueries } from '../read-models/share-queries.js';
import { ShareRequests } from './share-requests.js';
import { CreateShareDto, SharesQueryDto } from './shares.dto.js';
import { v2ReminderEmail, v2Share } from './share.presenters.js';
import { V2_REMINDER_EMAIL, V2_SHARE } from './share.schemas.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';

@ApiTags('v2 shares')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2')
export class V2SharesController {
  constructor(
    private readonly requests: ShareRequests,
    private readonly queries: ShareQueries,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Post('shares')
  @HttpCode(201)
  @CustomerTokenAllowed()
  @ApiOperation({ summary: 'Create an email share: its own referral code, emails to the recipients who have not opted out, and an optional reminder' })
  @ApiCreatedResponse({ description: '`{share}`', schema: wrapped('share', V2_SHARE) })
  @ApiErrorResponses(
    400,
    401,
    [403, "A customer token naming another customer, setting link_parameters or ip_address, or a reward_email_address other than its customer's"],
    [404, 'Unknown widget_id or customer_id (for a customer token, also a widget not published, inactive or archived)'],
    [429, 'A daily share recipient limit of the merchant is reached (per customer or per merchant)'],
  )
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateShareDto, @Req() request: FastifyRequest) {
    const merchantId = principal.merchant.id;
    let customerId = body.customer_id !== undefined ? Number(body.customer_id) : null;
    if (principal.kind === 'customer') {
      requireOwnCustomer(principal, customerId ?? undefined);
      customerId = principal.customerId;
      // As on a personal link: the merchant sets the landing page's parameters, and the IP the
      // fraud checks compare is where the request came from, not what the device says it is.
      const merchantOwned = (['link_parameters', 'ip_address'] as const).filter((field) => body[field] !== undefined);
      if (merchantOwned.length > 0) throw new ForbiddenError(merchantOwned.map((field) => `a customer token cannot set ${field}`));
    }
    const asCustomer = principal.kind === 'customer' ? { requestIp: request.ip ?? null } : undefined;
    const shareId = await this.requests.create(merchantId, customerId, body, 'widget', asCustomer);
    return { share: v2Share(await this.queries.share(merchantId, shareId), this.linkFactory.for(request), principal.merchant.can_see_recipients) };
  }

  @Get('shares')
  @CustomerTokenAllowed()
  @ApiOperation({ summary: 'List shares (a customer token sees only its own)' })
  @ApiOkResponse({ description: 'A list page of Share', schema: listPage(V2_SHARE) })
  @ApiErrorResponses(400, 401, 403)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: SharesQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const page = await this.queries.shares.walk(v2WalkQuery(paging, sharesFilter(principal, query)));
    const links = this.linkFactory.for(request);
    return v2Walked(request, this.linkFactory.origin(request), page, (d) => v2Share(d, links, principal.merchant.can_see_recipients));
  }

  @Get('shares/:id')
  @ApiOperation({ summary: 'A share' })
  @ApiOkResponse({ description: '`{share}`', schema: wrapped('share', V2_SHARE) })
  @ApiErrorResponses(400, 401, 403, 404)
  async get(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return { share: v2Share(await this.queries.share(merchant.id, parseId(raw, 'share')), this.linkFactory.for(request), merchant.can_see_recipients) };
  }

  @Get('reminder_emails')
  @ApiOperation({ summary: 'List reminder emails' })
  @ApiOkResponse({ description: 'A list page of ReminderEmail', schema: listPage(V2_REMINDER_EMAIL) })
  @ApiErrorResponses(400, 401, 403)
  async reminders(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V2ListQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const page = await this.queries.reminders.walk(v2WalkQuery(paging, { merchant_id: merchant.id }));
    const links = this.linkFactory.for(request);
    return v2Walked(request, this.linkFactory.origin(request), page, (d) => v2ReminderEmail(d, links));
  }

  @Get('reminder_emails/:id')
  @ApiOperation({ summary: 'A reminder email' })
  @ApiOkResponse({ description: '`{reminder_email}`', schema: wrapped('reminder_email', V2_REMINDER_EMAIL) })
  @ApiErrorResponses(400, 401, 403, 404)
  async reminder(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    return { reminder_email: v2ReminderEmail(await this.queries.reminder(merchant.id, parseId(raw, 'reminder email')), this.linkFactory.for(request)) };
  }
}

/** The filters of a shares list (v1 and v2): widget, advocate, and the share's reward email. */
export function sharesFilter(principal: Principal, query: Omit<SharesQueryDto, keyof V2ListQueryDto>): Record<string, Scalar> {
  const where = advocateListFilter(principal, query, 'customer_id');
  if (query.email_address !== undefined) where.reward_email_lc = normaliseEmail(query.email_address);
  return where;
}
