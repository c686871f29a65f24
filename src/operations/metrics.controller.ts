/**
 * GET /metrics: Prometheus text exposition. It shows every tenant's request counts, so it is
 * closed (404, as if absent) unless METRICS_TOKEN is set (then a bearer token) or METRICS_PUBLIC=true.
 */
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { secretsEqual } from '../platform/auth/tokens.js';
import { CONFIG, type Config } from '../platform/config.js';
import { NotFoundError, UnauthorizedError } from '../platform/errors.js';
import { ApiErrorResponses } from '../platform/http/error.schemas.js';
import { Metrics } from '../platform/observability/metrics.js';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Prometheus metrics (text format 0.0.4); needs the metrics token when the service has METRICS_TOKEN set, and is closed unless METRICS_TOKEN or METRICS_PUBLIC=true is set',
  })
  @ApiBearerAuth('metrics')
  @ApiOkResponse({
    description: 'The metrics in the Prometheus text exposition format 0.0.4 (`text/plain; version=0.0.4; charset=utf-8`)',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiErrorResponses(
    [401, 'METRICS_TOKEN is set, and the request does not carry it as a bearer token'],
    [404, 'Neither METRICS_TOKEN nor METRICS_PUBLIC=true is set: metrics are closed'],
  )
  async scrape(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const expected = this.config.metricsToken;
    if (!expected && !this.config.metricsPublic) throw new NotFoundError(['metrics are closed: set METRICS_TOKEN (or METRICS_PUBLIC=true) to scrape them']);
    if (expected) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!m || !secretsEqual(m[1], expected)) {
        throw new UnauthorizedError(['missing or invalid metrics token'], { 'www-authenticate': 'Bearer realm="metrics"' });
      }
    }
    const { contentType, body } = await this.metrics.render();
    reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  }
}
