/** Admin: blacklist and un-blacklist codes, create vanity personal links. */
import { Body, Controller, Delete, HttpCode, Param, Post, Put, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AdminGuard } from '../../platform/auth/guards.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { wrapped } from '../../platform/http/response-schemas.js';
import { CustomerQueries } from '../../customers/index.js';
import { MerchantDirectory } from '../../merchants/index.js';
import { WidgetQueries } from '../../widgets/index.js';
import { CreateReferralLinkCommand, SetBlacklistedCommand } from '../commands/referral-link-commands.js';
import { ReferralLinkQueries } from '../read-models/referral-link-queries.js';
import { VanityLinkDto } from './referral-links.dto.js';
import { v2ReferralLink } from './referral-link.presenters.js';
import { BLACKLISTED_REFERRAL_LINK, V2_REFERRAL_LINK } from './referral-link.schemas.js';

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id')
export class AdminReferralLinksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly merchants: MerchantDirectory,
    private readonly linksRead: ReferralLinkQueries,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Put('referral_links/:code/blacklist')
  @ApiOperation({ summary: 'Blacklist a code: its link still redirects, without the offer; a share whose code it is sends no reminder' })
  @ApiOkResponse({ description: '`{referral_link}` with `blacklisted`', schema: wrapped('referral_link', BLACKLISTED_REFERRAL_LINK) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or code'))
  async blacklist(@Param('merchant_id') rawMerchant: string, @Param('code') code: string, @Req() request: FastifyRequest) {
    return this.setBlacklisted(rawMerchant, code, true, request);
  }

  @Delete('referral_links/:code/blacklist')
  @ApiOperation({ summary: 'Take a code off the blacklist' })
  @ApiOkResponse({ description: '`{referral_link}` with `blacklisted`', schema: wrapped('referral_link', BLACKLISTED_REFERRAL_LINK) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or code'))
  async unblacklist(@Param('merchant_id') rawMerchant: string, @Param('code') code: string, @Req() request: FastifyRequest) {
    return this.setBlacklisted(rawMerchant, code, false, request);
  }

  @Post('vanity_links')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a vanity personal link with a chosen code, for a customer or an email address' })
  @ApiCreatedResponse({ description: '`{referral_link}`', schema: wrapped('referral_link', V2_REFERRAL_LINK) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant, widget_id or customer_id'), [
    409,
    'The code is taken, or differs in case alone from a code that is (codes are compared case-insensitively)',
  ])
  async vanity(@Param('merchant_id') rawMerchant: string, @Body() body: VanityLinkDto, @Req() request: FastifyRequest) {
    const merchantId = await this.merchant(rawMerchant);
    if (!/^[A-Za-z0-9_-]{3,32}$/.test(body.code)) {
      throw new BadRequestError([{ property: 'code', code: 'invalid', message: 'code must be 3 to 32 letters, digits, - or _' }]);
    }
    if ((body.customer_id === undefined) === (body.email_address === undefined)) {
      throw new BadRequestError([{ property: 'customer_id', code: 'invalid', message: 'give exactly one of customer_id and email_address' }]);
    }
    const widget = await this.widgets.require(merchantId, Number(body.widget_id));
    let customerId: number | null = null;
    let email = body.email_address ?? null;
    if (body.customer_id !== undefined) {
      const customer = await this.customers.byId(merchantId, Number(body.customer_id));
      if (!customer) throw new NotFoundError([`customer ${body.customer_id} not found`]);
      customerId = customer.id;
      email = customer.email;
    }
    const code = await this.commands.execute(
      new CreateReferralLinkCommand({
        merchantId,
        widgetId: widget.id,
        linkType: 'vanity_personal_url',
        code: body.code,
        advocateCustomerId: customerId,
        advocateEmail: email,
        shareId: null,
        reminderEmailId: null,
        linkParameters: body.link_parameters ?? null,
        ipAddress: null,
      }),
    );
    return { referral_link: v2ReferralLink(await this.linksRead.require(merchantId, code), this.linkFactory.for(request)) };
  }

  private async setBlacklisted(rawMerchant: string, code: string, blacklisted: boolean, request: FastifyRequest) {
    const merchantId = await this.merchant(rawMerchant);
    // The link's own code: the path's may be in another case.
    const { code: own } = await this.linksRead.require(merchantId, code);
    await this.commands.execute(new SetBlacklistedCommand({ merchantId, code: own, blacklisted }));
    const link = await this.linksRead.require(merchantId, own);
    return { referral_link: { ...v2ReferralLink(link, this.linkFactory.for(request)), blacklisted: link.blacklisted } };
  }

  private async merchant(raw: string): Promise<number> {
    return (await this.merchants.requireFromPath(raw)).id;
  }
}
