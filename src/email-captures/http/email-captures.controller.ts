/** v2 email captures (spec §4.2). */
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIP, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { docKey } from '../../platform/ids.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { optionalIdFilter, V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { Links, parseId } from '../../platform/http/links.js';
import { parseV2Paging, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { listPage, wrapped } from '../../platform/http/response-schemas.js';
import { IsEmailAddress, IsIdValue } from '../../platform/http/validators.js';
import { READ_STORE, type ReadCollection, type ReadStore, Scalar } from '../../platform/read-store/read-store.js';
import { WidgetQueries } from '../../widgets/index.js';
import { CaptureEmailCommand } from '../commands/capture-email.js';
import { EmailCaptureDoc, emailCapturesCollection } from '../read-models/email-captures.projection.js';
import { V2_EMAIL_CAPTURE } from './email-capture.schemas.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';

export class CreateEmailCaptureDto {
  @ApiProperty({ example: 42 })
  @IsDefined()
  @IsIdValue()
  widget_id: number | string;

  @ApiProperty({ example: 'friend@example.com' })
  @IsDefined()
  @IsString()
  @IsEmailAddress()
  @MaxLength(320)
  email_address: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  newsletter_opt_in?: boolean;

  @ApiPropertyOptional({ description: 'A referral code of yours; 400 when it does not exist' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  referral_code?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsIP()
  ip_address?: string;
}

export class EmailCapturesQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  widget_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  email_address?: string;
}

function present(doc: EmailCaptureDoc, links: Links) {
  return {
    id: doc.id,
    widget: links.v2('widgets', doc.widget_id),
    referral_link: doc.referral_code !== null ? links.v2('referral_links', doc.referral_code) : null,
    email_address: doc.email_address,
    ip_address: doc.ip_address,
    created_at: doc.created_at,
  };
}

@ApiTags('v2 email captures')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2/email_captures')
export class V2EmailCapturesController {
  private readonly captures: ReadCollection<EmailCaptureDoc>;

  constructor(
    @Inject(READ_STORE) readStore: ReadStore,
    private readonly commandBus: CommandBus,
    private readonly widgets: WidgetQueries,
    private readonly linkFactory: LinkFactory,
  ) {
    this.captures = readStore.collection<EmailCaptureDoc>(emailCapturesCollection);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Record an email address a widget captured' })
  @ApiCreatedResponse({ description: '`{email_capture}`', schema: wrapped('email_capture', V2_EMAIL_CAPTURE) })
  @ApiErrorResponses(400, 401, 403, [404, 'Unknown widget_id'])
  async create(@CurrentMerchant() merchant: MerchantRecord, @Body() body: CreateEmailCaptureDto, @Req() request: FastifyRequest) {
    const widget = await this.widgets.require(merchant.id, Number(body.widget_id));
    const capture = await this.commandBus.execute(
      new CaptureEmailCommand({
        merchantId: merchant.id,
        widgetId: widget.id,
        emailAddress: body.email_address,
        referralCode: body.referral_code,
        newsletterOptIn: body.newsletter_opt_in ?? false,
        ipAddress: body.ip_address ?? null,
      }),
    );
    return { email_capture: present(capture, this.linkFactory.for(request)) };
  }

  @Get()
  @ApiOperation({ summary: 'List email captures' })
  @ApiOkResponse({ description: 'A list page of EmailCapture', schema: listPage(V2_EMAIL_CAPTURE) })
  @ApiErrorResponses(400, 401, 403)
  async list(@CurrentMerchant() merchant: MerchantRecord, @Query() query: EmailCapturesQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const errors: string[] = [];
    const widgetId = optionalIdFilter('widget_id', query.widget_id, errors);
    if (errors.length) throw new BadRequestError(errors);
    const where: Record<string, Scalar> = { merchant_id: merchant.id };
    if (widgetId !== undefined) where.widget_id = widgetId;
    if (query.email_address !== undefined) where.email_lc = normaliseEmail(query.email_address);
    const page = await this.captures.walk(v2WalkQuery(paging, where));
    const links = this.linkFactory.for(request);
    return v2Walked(request, this.linkFactory.origin(request), page, (d) => present(d, links));
  }

  @Get(':id')
  @ApiOperation({ summary: 'An email capture' })
  @ApiOkResponse({ description: '`{email_capture}`', schema: wrapped('email_capture', V2_EMAIL_CAPTURE) })
  @ApiErrorResponses(400, 401, 403, 404)
  async get(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    const doc = await this.captures.get(docKey(parseId(raw, 'email capture')));
    if (!doc || doc.merchant_id !== merchant.id) throw new NotFoundError([`email capture ${raw} not found`]);
    return { email_capture: present(doc, this.linkFactory.for(request)) };
  }
}
