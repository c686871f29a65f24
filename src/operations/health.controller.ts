/** GET /health (the process is alive) and GET /ready (it should get traffic). No authentication. */
import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Readiness } from './readiness.js';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  @Get('health')
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'Liveness: 200 {"status":"ok"} while the process serves HTTP' })
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: 'Readiness: both stores answer and the read models are caught up within the configured bounds' })
  @ApiResponse({ status: 200, description: '{"status":"ready","read_models":{"lag_events":0,"lag_seconds":0}}' })
  @ApiResponse({ status: 503, description: '{"errors":[…]}: one sentence per failed check' })
  ready() {
    return this.readiness.check();
  }
}
