/** GET /health (the process is alive) and GET /ready (it should get traffic). No authentication. */
import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses, BAD_HOST } from '../platform/http/error.schemas.js';
import { HEALTH, READY } from './health.schemas.js';
import { Readiness } from './readiness.js';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  @Get('health')
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'Liveness: 200 {"status":"ok"} while the process serves HTTP', security: [] })
  @ApiOkResponse({ description: 'The process serves HTTP', schema: HEALTH })
  @ApiErrorResponses(BAD_HOST)
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'Readiness: both stores answer and the read models are caught up within the configured bounds', security: [] })
  @ApiOkResponse({ description: 'Ready for traffic, with how far the read models are behind', schema: READY })
  @ApiErrorResponses(BAD_HOST, [503, 'Not ready: one sentence per failed check, with Retry-After'])
  ready() {
    return this.readiness.check();
  }
}
