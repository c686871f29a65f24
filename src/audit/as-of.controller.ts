/**
 * Admin: what a read route of the API would have answered at an earlier point of the log.
 *
 *   GET /admin/merchants/{merchant_id}/as_of?position=<global position>&path=<v1 or v2 GET path with its query>
 *   GET /admin/merchants/{merchant_id}/as_of?at=<ISO 8601 time with zone>&path=…
 *
 * The read models are rebuilt up to that point into a throw-away store (PointInTime), and the
 * path is requested through the application itself, as the merchant, with every read-model
 * read redirected to that store (PointInTimeRequests, PointInTimeReadStore): the same routes,
 * guards, filters and presenters as live, so every read route and read model is covered
 * without code here.
 */
import { Controller, Get, Inject, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AdminGuard } from '../platform/auth/guards.js';
import { issueToken } from '../platform/auth/tokens.js';
import { CONFIG, type Config } from '../platform/config.js';
import { BadRequestError, type ErrorElement, NotFoundError, unrecognizedParameter } from '../platform/errors.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses } from '../platform/http/error.schemas.js';
import { parseId, requestOrigin } from '../platform/http/links.js';
import { calendarDay } from '../platform/http/paging.js';
import { docKey } from '../platform/ids.js';
import { MerchantDoc, merchantsCollection } from '../merchants/index.js';
import { ServiceUnavailableError } from '../platform/errors.js';
import { PointInTime, PointInTimeTarget } from './point-in-time.js';
import { PointInTimeRequests } from './point-in-time-requests.js';
import { AS_OF_ANSWER } from './as-of.schemas.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether the date and clock fields name a real day and time (Date.parse takes February 30 as March 2). */
/** ISO_TIME with the ranges isCalendarTime checks, as far as a pattern can (not the days of each month), for the document. */
const ISO_TIME_DOCUMENTED =
  '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$';

function isCalendarTime(text: string): boolean {
  const [year, month, day, hour, minute, second] = [
    text.slice(0, 4),
    text.slice(5, 7),
    text.slice(8, 10),
    text.slice(11, 13),
    text.slice(14, 16),
    text.slice(17, 19) || '00',
  ].map(Number);
  return !Number.isNaN(calendarDay(year, month, day)) && hour <= 23 && minute <= 59 && second <= 59;
}

/** A path with its percent-escapes decoded, as routing sees it; undefined when an escape is malformed. */
function decodedPath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}
const ALLOWED = new Set(['position', 'at', 'path']);

export function parseTarget(query: Record<string, unknown>): { target: PointInTimeTarget; path: string } {
  const errors: ErrorElement[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (!ALLOWED.has(name)) errors.push(unrecognizedParameter(name, [...ALLOWED]));
    else if (typeof value !== 'string') errors.push(`query parameter ${name} must be given once`);
  }
  if (errors.length) throw new BadRequestError(errors);
  const { position, at, path } = query as Record<string, string | undefined>;
  let target: PointInTimeTarget | undefined;
  if ((position === undefined) === (at === undefined)) errors.push('give exactly one of position (a global position) or at (an ISO 8601 time with a zone)');
  else if (position !== undefined) {
    if (!/^[0-9]{1,40}$/.test(position)) errors.push('position must be a non-negative integer');
    else target = { position: BigInt(position) };
  } else if (at !== undefined) {
    const time = Date.parse(at);
    if (!ISO_TIME.test(at) || Number.isNaN(time) || !isCalendarTime(at)) errors.push('at must be an ISO 8601 time with a zone, e.g. 2026-05-01T08:00:00Z');
    else target = { at: new Date(time) };
  }
  // Checked after the same normalisation the request will get (dot segments, %2e%2e included).
  // A path the URL parser refuses (`//[`, a port out of range) is no path at all: 400 below, not a throw.
  const normal =
    path === undefined || path.length > 2000 || !path.startsWith('/') || !URL.canParse(path, 'http://localhost')
      ? undefined
      : new URL(path, 'http://localhost');
  if (path === undefined) errors.push('path is required: the v1 or v2 GET path to answer, with its query, URL-encoded');
  else if (!normal || normal.origin !== 'http://localhost' || !/^\/v[12]\//.test(normal.pathname) || normal.hash !== '' || /\s/.test(path)) {
    errors.push('path must be a v1 or v2 path such as /v2/customers?limit=5');
  } else {
    // As the router will see it: /v2/%61udit/ is /v2/audit/.
    const routed = decodedPath(normal.pathname);
    if (routed === undefined) errors.push('path must be a v1 or v2 path such as /v2/customers?limit=5');
    else if (routed.startsWith('/v2/audit/')) errors.push('the audit trail is a history already: use /v2/audit/events with to= instead of a point in time');
  }
  if (errors.length) throw new BadRequestError(errors);
  return { target: target!, path: `${normal!.pathname}${normal!.search}` };
}

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id/as_of')
export class AdminAsOfController {
  constructor(
    private readonly pointInTime: PointInTime,
    private readonly requests: PointInTimeRequests,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get()
  @ApiOperation({ summary: 'What a v1/v2 GET route would have answered for this merchant at an earlier position or time of the event log' })
  @ApiQuery({
    name: 'position',
    required: false,
    schema: { type: 'string', pattern: '^[0-9]{1,40}$' },
    description: 'Global position of the last event to include. Give exactly one of position and at.',
  })
  @ApiQuery({
    name: 'at',
    required: false,
    schema: { type: 'string', format: 'date-time', pattern: ISO_TIME_DOCUMENTED },
    description: 'ISO 8601 time with a zone: include every event up to the first one recorded after it. Give exactly one of position and at.',
  })
  @ApiQuery({
    name: 'path',
    required: true,
    schema: { type: 'string', pattern: '^/v[12]/[^\\s#]*$', maxLength: 2000 },
    description: 'The GET path with its query, URL-encoded, e.g. %2Fv2%2Fcustomers%3Flimit%3D5',
  })
  @ApiOkResponse({ description: 'The point reached and the inner answer (its status and body)', schema: AS_OF_ANSWER })
  @ApiErrorResponses(
    [400, 'Not exactly one of position and at, a bad value, a path outside /v1 and /v2, /v2/audit/…, or another query parameter'],
    ADMIN_UNAUTHORIZED,
    adminNotFound('The merchant did not exist at that point'),
    [503, 'Point-in-time reads are not available in this process'],
  )
  async asOf(@Param('merchant_id') rawId: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest) {
    const merchantId = parseId(rawId, 'merchant');
    const { target, path } = parseTarget(query ?? {});
    if (!this.requests.available) throw new ServiceUnavailableError(['point-in-time reads are not available in this process']);

    const models = await this.pointInTime.models(target);
    const merchant = await models.store.collection<MerchantDoc>(merchantsCollection).get(docKey(merchantId));
    if (!merchant) throw new NotFoundError([`merchant ${merchantId} did not exist at position ${models.position}`]);
    const authorization = path.startsWith('/v1/')
      ? `Basic ${Buffer.from(`${merchant.access_key}:${merchant.secret_key}`).toString('base64')}`
      : `Bearer ${issueToken({ kind: 'merchant', merchantId, generation: merchant.token_generation }, merchant.secret_key, this.config.tokenKeyContext)}`;

    const origin = requestOrigin(request, this.config.publicBaseUrl);
    const answer = await this.requests.get(
      models.store,
      path,
      {
        authorization,
        accept: 'application/json',
        'x-request-id': `${request.id}.as-of`,
      },
      origin,
    );
    let body: unknown = answer.text;
    try {
      body = JSON.parse(answer.text);
    } catch {
      // not JSON: returned as text
    }
    if (body && typeof body === 'object' && typeof (body as { next_page?: unknown }).next_page === 'string') {
      const next = new URL((body as { next_page: string }).next_page);
      const again = new URLSearchParams({ position: models.position.toString(), path: `${next.pathname}${next.search}` });
      (body as { next_page: string }).next_page = `${origin}/admin/merchants/${merchantId}/as_of?${again}`;
    }
    return {
      as_of: {
        position: models.position.toString(),
        last_event_at: models.lastEventAt?.toISOString() ?? null,
        ...('at' in target ? { at: target.at.toISOString() } : {}),
      },
      path,
      status: answer.status,
      body,
    };
  }
}
