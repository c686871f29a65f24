/** v2 customer tokens (spec §5.2): a token a merchant's server issues for one of its customers, for the customer-scoped routes and the embedded library. */
import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { CUSTOMER_TOKEN } from '../../merchants/index.js';
import { V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { CUSTOMER_TOKEN_TTL_MS, issueToken } from '../../platform/auth/tokens.js';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { NotFoundError } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { IsIdValue } from '../../platform/http/validators.js';
import { CustomerQueries } from '../read-models/customer-queries.js';

export class CustomerTokenDto {
  @ApiProperty({ description: 'Internal customer id (GET /v2/customers?account_id=…)', example: 123 })
  @IsDefined()
  @IsIdValue()
  customer_id: number | string;
}

@ApiTags('v2 tokens')
@UseGuards(V2TokenGuard)
@Controller('v2/tokens')
export class V2CustomerTokensController {
  constructor(
    private readonly customers: CustomerQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Post('customer')
  @HttpCode(200)
  @ApiBearerAuth('token')
  @ApiOperation({ summary: 'Issue a token scoped to one customer, valid for 10 minutes' })
  @ApiOkResponse({ description: 'CustomerToken', schema: CUSTOMER_TOKEN })
  @ApiErrorResponses(400, 401, 403, [404, 'Unknown customer_id'])
  async customerToken(@CurrentMerchant() merchant: MerchantRecord, @Body() body: CustomerTokenDto) {
    const customerId = Number(body.customer_id);
    if (!(await this.customers.byId(merchant.id, customerId))) throw new NotFoundError([`customer ${customerId} not found`]);
    const expiresAt = this.clock.now().getTime() + CUSTOMER_TOKEN_TTL_MS;
    return {
      token: issueToken(
        { kind: 'customer', merchantId: merchant.id, generation: merchant.token_generation, customerId, expiresAt },
        merchant.secret_key,
        this.config.tokenKeyContext,
      ),
    };
  }
}
