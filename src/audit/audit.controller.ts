/**
 * v2 audit trail (beyond the spec): a merchant reads its own event log, whole or per entity,
 * with secrets redacted, and share recipients' addresses too unless the merchant may see them.
 * Merchant tokens only (a customer token gets 403).
 */
import { applyDecorators, Controller, Get, Inject, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V2TokenGuard } from '../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../platform/auth/principal.js';
import { CONFIG, type Config } from '../platform/config.js';
import { EVENT_STORE, type EventStore } from '../platform/event-store/event-store.js';
import { BadRequestError, NotFoundError } from '../platform/errors.js';
import { ApiErrorResponses } from '../platform/http/error.schemas.js';
import { requestOrigin } from '../platform/http/links.js';
import { v2Page } from '../platform/http/paging.js';
import { listPage } from '../platform/http/response-schemas.js';
import { AUDIT_EVENT } from './audit.schemas.js';
import { AUDIT_INDEX, AuditEntryDoc, type AuditIndex } from './audit-index.js';
import { MAX_TYPES, parseAuditQuery, TYPE } from './audit-query.js';
import { ENTITY_KINDS, ID_TEXT, merchantOf, parseEntity } from './entities.js';
import { hideRecipients, redact } from './redaction.js';

/** One event as the audit trail shows it: in its own shape, secrets redacted. */
export function presentAuditEvent(doc: AuditEntryDoc, data: unknown, canSeeRecipients: boolean) {
  return {
    id: doc.event_id,
    type: doc.type,
    stream: doc.stream,
    revision: doc.revision,
    position: doc.position,
    created_at: doc.created_at,
    data: canSeeRecipients ? redact(data) : hideRecipients(doc.type, redact(data)),
  };
}

/** An entity reference, `kind:id`, with one of the kinds parseEntity knows. */
const ENTITY_SCHEMA = { type: 'string', pattern: `^(${[...ENTITY_KINDS].join('|')}):${ID_TEXT.source.slice(1)}` } as const;

/** Event types, each name as parseAuditQuery takes it; one value may list several, comma-separated. */
const TYPE_NAME = `${TYPE.source.slice(1, -1)}`;
const TYPES_SCHEMA = { type: 'array', maxItems: MAX_TYPES, items: { type: 'string', pattern: `^ *${TYPE_NAME} *(, *${TYPE_NAME} *)*$` } } as const;

const AuditListQuery = () =>
  applyDecorators(
    ApiQuery({ name: 'cursor', required: false, type: String, description: "Opaque cursor from the previous page's next_page URL" }),
    ApiQuery({ name: 'limit', required: false, description: 'Results per page: 1 to 100, default 20' }),
    ApiQuery({ name: 'from', required: false, description: 'Recorded on or after this date (YYYY-MM-DD, UTC)' }),
    ApiQuery({ name: 'to', required: false, description: 'Recorded on or before this date (YYYY-MM-DD, UTC, inclusive)' }),
    ApiQuery({ name: 'type', required: false, schema: TYPES_SCHEMA, description: 'Event type; repeat it or separate types with commas' }),
    ApiQuery({ name: 'stream', required: false, schema: { type: 'string', minLength: 1, maxLength: 500 }, description: 'Exact stream name' }),
  );

@ApiTags('v2 audit')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2/audit')
export class V2AuditController {
  constructor(
    @Inject(AUDIT_INDEX) private readonly audit: AuditIndex,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  /**
   * A `stream` filter names one of the merchant's streams, or is a 404 (as for another merchant's
   * entity), decided from the stream's last event alone, before any of the stream is listed.
   */
  private async assertOwnStream(merchantId: number, stream: string | undefined): Promise<void> {
    if (stream === undefined) return;
    // `$` streams are the event store's own (EventStoreDB's system streams): no merchant's.
    const last = stream.startsWith('$') ? undefined : await this.eventStore.readLastOfStream(stream);
    if (!last || merchantOf(last) !== merchantId) throw new NotFoundError([`stream ${stream.slice(0, 64)} not found`]);
  }

  @Get('events')
  @AuditListQuery()
  @ApiOperation({ summary: "The merchant's event log, oldest first, secrets redacted" })
  @ApiOkResponse({ description: 'A list page of audit events', schema: listPage(AUDIT_EVENT) })
  @ApiErrorResponses(400, 401, 403, [404, 'A stream filter that names no stream of the merchant'])
  @ApiQuery({
    name: 'entity',
    required: false,
    schema: ENTITY_SCHEMA,
    description: 'Only events about this entity: kind:id, e.g. customer:123, widget:45, purchase:9',
  })
  async events(@CurrentMerchant() merchant: MerchantRecord, @Query() raw: Record<string, unknown>, @Req() request: FastifyRequest) {
    const q = parseAuditQuery(raw, { entityFilter: true, request });
    await this.assertOwnStream(merchant.id, q.stream);
    const docs = await this.audit.page({ merchantId: merchant.id, entity: q.entity, stream: q.stream, types: q.types }, q.paging);
    return v2Page(request, requestOrigin(request, this.config.publicBaseUrl), q.paging, docs, (d) => presentAuditEvent(d, d.data, merchant.can_see_recipients));
  }

  @Get('entities/:entity')
  @AuditListQuery()
  @ApiOperation({ summary: 'The history of one entity (kind:id, e.g. customer:123), oldest first, secrets redacted' })
  @ApiOkResponse({ description: 'A list page of audit events', schema: listPage(AUDIT_EVENT) })
  @ApiErrorResponses([400, 'An unknown entity kind, or bad paging, dates or filters'], 401, 403, [
    404,
    'No such entity of the merchant, or a stream filter that names no stream of the merchant',
  ])
  @ApiParam({ name: 'entity', schema: ENTITY_SCHEMA, description: 'kind:id, e.g. customer:123' })
  async entity(
    @CurrentMerchant() merchant: MerchantRecord,
    @Param('entity') rawEntity: string,
    @Query() raw: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    const entity = parseEntity(rawEntity);
    // An unknown kind is a mistake in the request (docs/audit.md), not an entity that is missing.
    const colon = rawEntity.indexOf(':');
    if (!entity && colon > 0 && !ENTITY_KINDS.has(rawEntity.slice(0, colon))) {
      throw new BadRequestError([`entity kind ${rawEntity.slice(0, Math.min(colon, 64))} is unknown; use one of ${[...ENTITY_KINDS].join(', ')}`]);
    }
    if (!entity || !(await this.audit.exists(merchant.id, entity))) throw new NotFoundError([`entity ${rawEntity.slice(0, 64)} not found`]);
    const q = parseAuditQuery(raw, { entityFilter: false, request });
    await this.assertOwnStream(merchant.id, q.stream);
    const docs = await this.audit.page({ merchantId: merchant.id, entity, stream: q.stream, types: q.types }, q.paging);
    return v2Page(request, requestOrigin(request, this.config.publicBaseUrl), q.paging, docs, (d) => presentAuditEvent(d, d.data, merchant.can_see_recipients));
  }
}
