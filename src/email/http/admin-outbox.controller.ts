/** Admin: the outbox, every email the service sent (or will send) for a merchant. */
import { Controller, Get, Inject, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { AdminGuard } from '../../platform/auth/guards.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { parseV2Paging, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { listPage } from '../../platform/http/response-schemas.js';
import { READ_STORE, type ReadCollection, type ReadStore, Scalar } from '../../platform/read-store/read-store.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';
import { MerchantDirectory } from '../../merchants/index.js';
import { OUTBOX_STATUSES, OutboxDoc, outboxCollection } from '../read-models/outbox.projection.js';
import { OUTBOX_MESSAGE } from './outbox.schemas.js';

export class OutboxQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ enum: OUTBOX_STATUSES })
  @IsOptional()
  @IsIn(OUTBOX_STATUSES)
  status?: string;

  @ApiPropertyOptional({ description: 'Recipient address (compared lower-cased and trimmed)' })
  @IsOptional()
  @IsString()
  recipient?: string;
}

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id/outbox')
export class AdminOutboxController {
  private readonly outbox: ReadCollection<OutboxDoc>;

  constructor(
    @Inject(READ_STORE) readStore: ReadStore,
    private readonly merchants: MerchantDirectory,
    private readonly linkFactory: LinkFactory,
  ) {
    this.outbox = readStore.collection<OutboxDoc>(outboxCollection);
  }

  @Get()
  @ApiOperation({ summary: 'Outgoing emails of a merchant, oldest first (status queued, delivered, suppressed or failed)' })
  @ApiOkResponse({ description: 'A list page of outbox messages (v2 paging)', schema: listPage(OUTBOX_MESSAGE) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async list(@Param('merchant_id') raw: string, @Query() query: OutboxQueryDto, @Req() request: FastifyRequest) {
    const merchantId = (await this.merchants.requireFromPath(raw)).id;
    const paging = parseV2Paging(query, request);
    const where: Record<string, Scalar> = { merchant_id: merchantId };
    if (query.status !== undefined) where.status = query.status;
    // Compared as every address filter compares (opt-outs, shares): VICTIM@x.com finds victim@x.com.
    if (query.recipient !== undefined) where.to_lc = normaliseEmail(query.recipient);
    const page = await this.outbox.walk(v2WalkQuery(paging, where));
    return v2Walked(request, this.linkFactory.origin(request), page, (d) => ({
      id: d._id,
      to: d.to,
      subject: d.subject,
      text: d.text,
      kind: d.kind,
      share_id: d.share_id,
      user_data_deletion_id: d.user_data_deletion_id ?? null,
      reminder_email_id: d.reminder_email_id,
      status: d.status,
      created_at: d.created_at,
      delivered_at: d.delivered_at,
      delivered_via: d.delivered_via ?? null,
      failure: d.failure ?? null,
    }));
  }
}
