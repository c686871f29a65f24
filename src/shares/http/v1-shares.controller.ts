/**
 * v1 shares and reminder emails (spec §4.1: "not shown"; docs/api-decisions.md): the v2 routes'
 * bodies and filters in v1's words (campaign_id for widget_id), v1's Basic auth, offset paging and records (ShareExcerpt and the reminder
 * email of spec §2.2), answered bare as v1 answers a customer.
 */
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V1BasicAuthGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { asWidgetFilter, V1ListQueryDto, withWidgetId } from '../../platform/http/list-query.dto.js';
import { parseId } from '../../platform/http/links.js';
import { parseV1Paging, v1Search } from '../../platform/http/paging.js';
import { searchResults } from '../../platform/http/response-schemas.js';
import { V1Embedding, V1Embeds } from '../../customers/index.js';
import { ShareQueries } from '../read-models/share-queries.js';
import { ReminderEmailDoc } from '../read-models/shares.projection.js';
import { ShareRequests } from './share-requests.js';
import { sharesFilter } from './shares.controller.js';
import { V1CreateShareDto, V1SharesQueryDto } from './shares.dto.js';
import { v1ReminderEmail, v1Share } from './share.presenters.js';
import { V1_REMINDER_EMAIL, V1_SHARE_EXCERPT } from './share.schemas.js';

@ApiTags('v1 shares')
@ApiBasicAuth('basic')
@UseGuards(V1BasicAuthGuard)
@Controller('v1')
export class V1SharesController {
  constructor(
    private readonly requests: ShareRequests,
    private readonly queries: ShareQueries,
    private readonly embedding: V1Embedding,
  ) {}

  @Post('shares')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an email share (the body of POST /v2/shares, with campaign_id for widget_id); 201 with the share' })
  @ApiCreatedResponse({ description: 'The share (a ShareExcerpt)', schema: V1_SHARE_EXCERPT })
  @ApiErrorResponses(
    400,
    401,
    [404, 'Unknown campaign_id or customer_id'],
    [429, 'A daily share recipient limit of the merchant is reached (per customer or per merchant)'],
  )
  async create(@CurrentMerchant() merchant: MerchantRecord, @Body() body: V1CreateShareDto, @Req() request: FastifyRequest) {
    const shareId = await this.requests.create(merchant.id, body.customer_id !== undefined ? Number(body.customer_id) : null, withWidgetId(body), 'campaign');
    return v1Share(await this.queries.share(merchant.id, shareId), this.embedding.for(merchant.id, request), merchant.can_see_recipients);
  }

  @Get('shares')
  @ApiOperation({ summary: 'Search shares (filters of GET /v2/shares)' })
  @ApiOkResponse({ description: 'SearchResults of Share (ShareExcerpt)', schema: searchResults(V1_SHARE_EXCERPT) })
  @ApiErrorResponses(400, 401)
  async search(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1SharesQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV1Paging(query);
    const embeds = this.embedding.for(merchant.id, request);
    return v1Search(this.queries.shares, paging, sharesFilter({ kind: 'merchant', merchant }, asWidgetFilter(query)), (docs) =>
      Promise.all(docs.map((doc) => v1Share(doc, embeds, merchant.can_see_recipients))),
    );
  }

  @Get('shares/:id')
  @ApiOperation({ summary: 'A share' })
  @ApiOkResponse({ description: 'The share (a ShareExcerpt)', schema: V1_SHARE_EXCERPT })
  @ApiErrorResponses(400, 401, 404)
  async get(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    const doc = await this.queries.share(merchant.id, parseId(raw, 'share'));
    return v1Share(doc, this.embedding.for(merchant.id, request), merchant.can_see_recipients);
  }

  @Get('reminder_emails')
  @ApiOperation({ summary: 'Search reminder emails' })
  @ApiOkResponse({ description: 'SearchResults of ReminderEmail', schema: searchResults(V1_REMINDER_EMAIL) })
  @ApiErrorResponses(400, 401)
  async reminders(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1ListQueryDto, @Req() request: FastifyRequest) {
    const embeds = this.embedding.for(merchant.id, request);
    return v1Search(this.queries.reminders, parseV1Paging(query), { merchant_id: merchant.id }, (docs) =>
      Promise.all(docs.map((doc) => this.presentReminder(merchant, doc, embeds))),
    );
  }

  @Get('reminder_emails/:id')
  @ApiOperation({ summary: 'A reminder email' })
  @ApiOkResponse({ description: 'ReminderEmail', schema: V1_REMINDER_EMAIL })
  @ApiErrorResponses(400, 401, 404)
  async reminder(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    const doc = await this.queries.reminder(merchant.id, parseId(raw, 'reminder email'));
    return this.presentReminder(merchant, doc, this.embedding.for(merchant.id, request));
  }

  private async presentReminder(merchant: MerchantRecord, doc: ReminderEmailDoc, embeds: V1Embeds) {
    return v1ReminderEmail(doc, await this.queries.share(merchant.id, doc.share_id), embeds, merchant.can_see_recipients);
  }
}
