/** v2 tokens (spec §5.2): merchant tokens from keys and their revocation (customer tokens: customers/http/customer-tokens.controller.ts). */
import { Body, Controller, Delete, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuthFailureLimiter, NO_KEY } from '../../platform/auth/auth-failure-limiter.js';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { V2_CHALLENGE, V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, MERCHANT_LOOKUP, type MerchantLookup, type MerchantRecord, PublicRoute } from '../../platform/auth/principal.js';
import { issueToken, secretsEqual } from '../../platform/auth/tokens.js';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { UnauthorizedError } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { CONFIRMATION } from '../../platform/http/response-schemas.js';
import { RevokeMerchantTokensCommand } from '../commands/merchant-commands.js';
import { MERCHANT_TOKEN } from './token.schemas.js';

export class MerchantKeysDto {
  @ApiProperty({ example: 'ak_…' })
  @IsDefined()
  @IsString()
  @MaxLength(200)
  access_key: string;

  @ApiProperty({ example: 'sk_…' })
  @IsDefined()
  @IsString()
  @MaxLength(200)
  secret_key: string;
}

const badKeys = () => new UnauthorizedError(['invalid access_key or secret_key']);

@ApiTags('v2 tokens')
@UseGuards(V2TokenGuard)
@Controller('v2/tokens')
export class V2TokensController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(MERCHANT_LOOKUP) private readonly merchants: MerchantLookup,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly failures: AuthFailureLimiter,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  private async merchantFor(keys: MerchantKeysDto, client: string): Promise<MerchantRecord> {
    const key = keys.access_key === '' ? NO_KEY : keys.access_key;
    await this.failures.assertAllowed(client, key);
    const merchant = await this.merchants.byAccessKey(keys.access_key);
    const ok = secretsEqual(merchant?.secret_key ?? 'sk_no_such_merchant', keys.secret_key);
    if (!merchant || !ok) {
      await this.failures.recordFailure(client, key);
      throw badKeys();
    }
    return merchant;
  }

  @Post('merchant')
  @PublicRoute()
  @HttpCode(200)
  @ApiOperation({ summary: 'Exchange the access key and secret key for a long-lived merchant token (the only unauthenticated endpoint)', security: [] })
  @ApiOkResponse({ description: 'MerchantToken', schema: MERCHANT_TOKEN })
  @ApiErrorResponses(400, [401, 'Unknown access_key, or a secret_key that does not match it'], 429)
  async merchantToken(@Body() body: MerchantKeysDto, @Req() request: FastifyRequest) {
    const merchant = await this.merchantFor(body, request.ip);
    return {
      token: issueToken({ kind: 'merchant', merchantId: merchant.id, generation: merchant.token_generation }, merchant.secret_key, this.config.tokenKeyContext),
    };
  }

  @Delete('merchant')
  @HttpCode(200)
  @ApiBearerAuth('token')
  @ApiOperation({ summary: "Invalidate all of the merchant's outstanding tokens (merchant and customer)" })
  @ApiOkResponse({ description: 'Confirmation', schema: CONFIRMATION })
  @ApiErrorResponses(400, [401, "Missing or bad credentials, or keys that are not the calling merchant's"], 403)
  async revoke(@CurrentMerchant() caller: MerchantRecord, @Body() body: MerchantKeysDto, @Req() request: FastifyRequest) {
    const merchant = await this.merchantFor(body, request.ip);
    if (merchant.id !== caller.id) throw badKeys();
    await this.commands.execute(new RevokeMerchantTokensCommand({ merchantId: merchant.id, generation: caller.token_generation })).catch((error: unknown) => {
      // A token revoked meanwhile: answered as any request with a revoked token, which names v2's credentials.
      throw error instanceof UnauthorizedError ? new UnauthorizedError(error.errors, { ...error.advice, 'www-authenticate': V2_CHALLENGE }) : error;
    });
    return { success: true };
  }
}
