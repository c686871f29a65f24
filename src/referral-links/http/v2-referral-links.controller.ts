/** v2 personal referral links and referral-link lookup (spec §4.2). */
import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentPrincipal, CustomerTokenAllowed, type Principal, requireOwnCustomer } from '../../platform/auth/principal.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { advocateListFilter } from '../../platform/http/list-query.dto.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { parseV2Paging, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { listPage, wrapped } from '../../platform/http/response-schemas.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { CustomerQueries } from '../../customers/index.js';
import { WidgetQueries } from '../../widgets/index.js';
import { EnsurePersonalLinkCommand, ReplaceLinkParametersCommand } from '../commands/referral-link-commands.js';
import { ReferralLinkQueries } from '../read-models/referral-link-queries.js';
import { CreatePersonalLinkDto, PersonalLinksQueryDto, ReplaceLinkParametersDto } from './referral-links.dto.js';
import { v2ReferralLink } from './referral-link.presenters.js';
import { V2_REFERRAL_LINK } from './referral-link.schemas.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';

@ApiTags('v2 referral links')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2')
export class V2ReferralLinksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly linksRead: ReferralLinkQueries,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Post('personal_referral_links')
  @CustomerTokenAllowed()
  @ApiOperation({
    summary:
      "Get or create the personal referral link (PURL) of an advocate for a widget: 201 with the link either way (spec §4.2's table), the advocate's existing link when there is one",
  })
  @ApiCreatedResponse({ description: '`{referral_link}`: the new link, or the advocate’s existing one', schema: wrapped('referral_link', V2_REFERRAL_LINK) })
  @ApiErrorResponses(400, 401, 403, [404, 'Unknown widget_id or customer_id (for a customer token, also a widget not published, inactive or archived)'])
  @HttpCode(201)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreatePersonalLinkDto, @Req() request: FastifyRequest) {
    const merchantId = principal.merchant.id;
    let customerId = body.customer_id !== undefined ? Number(body.customer_id) : undefined;
    if (principal.kind === 'customer') {
      requireOwnCustomer(principal, customerId);
      customerId = principal.customerId;
      // The merchant sets a link's tracking parameters (PATCH is not a customer token's route) and an
      // advocate's reward address; the customer's device only gets its link.
      const merchantOwned = (['link_parameters', 'email_address'] as const).filter((field) => body[field] !== undefined);
      if (merchantOwned.length > 0) throw new ForbiddenError(merchantOwned.map((field) => `a customer token cannot set ${field}`));
    }
    if (customerId === undefined && body.email_address === undefined) {
      throw new BadRequestError([{ property: 'customer_id', code: 'missing', message: 'customer_id or email_address is required' }]);
    }
    // A customer token's device gets links only on widgets on offer (published, active, not archived).
    if (principal.kind === 'customer') await this.widgets.requireOffered(merchantId, Number(body.widget_id));
    else await this.widgets.require(merchantId, Number(body.widget_id));
    let defaultAdvocateEmail: string | null = null;
    if (customerId !== undefined) {
      const customer = await this.customers.byId(merchantId, customerId);
      if (!customer) throw new NotFoundError([`customer ${customerId} not found`]);
      defaultAdvocateEmail = customer.email;
    }
    const { code } = await this.commands.execute(
      new EnsurePersonalLinkCommand({
        merchantId,
        widgetId: Number(body.widget_id),
        advocate: customerId !== undefined ? { customerId } : { email: body.email_address! },
        advocateEmail: body.email_address ?? null,
        defaultAdvocateEmail,
        linkParameters: body.link_parameters,
        ipAddress: request.ip ?? null,
      }),
    );
    return { referral_link: v2ReferralLink(await this.linksRead.require(merchantId, code), this.linkFactory.for(request)) };
  }

  @Get('personal_referral_links')
  @CustomerTokenAllowed()
  @ApiOperation({ summary: 'List personal referral links (a customer token sees only its own)' })
  @ApiOkResponse({ description: 'A list page of ReferralLink', schema: listPage(V2_REFERRAL_LINK) })
  @ApiErrorResponses(400, 401, 403)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PersonalLinksQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const where: Record<string, Scalar> = { ...advocateListFilter(principal, query, 'advocate_customer_id'), personal: true };
    if (query.email_address !== undefined) {
      where.advocate_email_lc = normaliseEmail(query.email_address);
      // "email_address (email PURLs)" (spec §4.2): links of an advocate known by address, not a customer's
      // links whose reward address it is. A customer-scoped list (customer_id, a customer token) keeps its scope.
      if (where.advocate_customer_id === undefined) where.advocate_customer_id = null;
    }
    const page = await this.linksRead.walk(v2WalkQuery(paging, where));
    const links = this.linkFactory.for(request);
    return v2Walked(request, this.linkFactory.origin(request), page, (doc) => v2ReferralLink(doc, links));
  }

  @Get('referral_links/:code')
  @ApiOperation({ summary: 'A referral link of any type by its code' })
  @ApiOkResponse({ description: '`{referral_link}`', schema: wrapped('referral_link', V2_REFERRAL_LINK) })
  @ApiErrorResponses(400, 401, 403, 404)
  async get(@CurrentPrincipal() principal: Principal, @Param('code') code: string, @Req() request: FastifyRequest) {
    return { referral_link: v2ReferralLink(await this.linksRead.require(principal.merchant.id, code), this.linkFactory.for(request)) };
  }

  @Patch('personal_referral_links/:code')
  @ApiOperation({ summary: 'Replace the tracking parameters of a personal referral link' })
  @ApiOkResponse({ description: '`{referral_link}`', schema: wrapped('referral_link', V2_REFERRAL_LINK) })
  @ApiErrorResponses(400, 401, 403, 404)
  async patch(@CurrentPrincipal() principal: Principal, @Param('code') code: string, @Body() body: ReplaceLinkParametersDto, @Req() request: FastifyRequest) {
    const merchantId = principal.merchant.id;
    const link = await this.linksRead.require(merchantId, code);
    if (!link.personal) throw new NotFoundError([`personal referral link ${code.slice(0, 64)} not found`]);
    // The link's own code: the path's may be in another case.
    await this.commands.execute(new ReplaceLinkParametersCommand({ merchantId, code: link.code, linkParameters: body.link_parameters }));
    return { referral_link: v2ReferralLink(await this.linksRead.require(merchantId, link.code), this.linkFactory.for(request)) };
  }
}
