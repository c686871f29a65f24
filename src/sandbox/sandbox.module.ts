/** Hosts the sandbox beside the live service, and the admin routes about it. */
import {
  Controller,
  DynamicModule,
  Get,
  HttpCode,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Post,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../platform/auth/guards.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses } from '../platform/http/error.schemas.js';
import { wrapped } from '../platform/http/response-schemas.js';
import { SandboxHost } from './sandbox-host.js';
import { SANDBOX } from './sandbox.schemas.js';

export const SANDBOX_HOST = Symbol('SandboxHost');

function present(host: SandboxHost) {
  const merchant = host.sampleMerchant;
  return {
    sandbox: {
      base_paths: ['/sandbox/v1', '/sandbox/v2'],
      merchant_id: merchant.id,
      access_key: merchant.accessKey,
      secret_key: merchant.secretKey,
      publishable_key: merchant.publishableKey,
      generation: host.generation,
      next_reset_at: host.nextResetAt.toISOString(),
    },
  };
}

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/sandbox')
class AdminSandboxController {
  constructor(@Inject(SANDBOX_HOST) private readonly host: SandboxHost) {}

  @Get()
  @ApiOperation({ summary: "The sandbox's sample merchant (id and keys, documented in the README) and the time of the next reset" })
  @ApiOkResponse({ description: '`{sandbox}`', schema: wrapped('sandbox', SANDBOX) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound())
  get() {
    return present(this.host);
  }

  @Post('reset')
  @HttpCode(200)
  @ApiOperation({ summary: 'Return the sandbox to its baseline now (it also does so every SANDBOX_RESET_INTERVAL_MS)' })
  @ApiOkResponse({ description: '`{sandbox}` after the reset', schema: wrapped('sandbox', SANDBOX) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound())
  async reset() {
    await this.host.reset();
    return present(this.host);
  }
}

@Injectable()
class SandboxLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(SANDBOX_HOST) private readonly host: SandboxHost) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.host.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.host.close();
  }
}

@Module({})
export class SandboxModule {
  static forRoot(host: SandboxHost): DynamicModule {
    return { module: SandboxModule, controllers: [AdminSandboxController], providers: [{ provide: SANDBOX_HOST, useValue: host }, SandboxLifecycle] };
  }
}
