/** v2 customers (spec §4.2): create or update by account id, list, read. */
import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { NotFoundError, written } from '../../platform/errors.js';
import { ApiErrorResponses, READ_MODELS_BEHIND } from '../../platform/http/error.schemas.js';
import { parseId, requestOrigin } from '../../platform/http/links.js';
import { parseV2Paging, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { listPage, wrapped } from '../../platform/http/response-schemas.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { UpsertCustomerCommand } from '../commands/upsert-customer.js';
import { CustomerQueries } from '../read-models/customer-queries.js';
import { UpsertCustomerDto, V2CustomersQueryDto } from './customers.dto.js';
import { v2Customer } from './customer.presenters.js';
import { V2_CUSTOMER } from './customer.schemas.js';

@ApiTags('v2 customers')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2/customers')
export class V2CustomersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly customers: CustomerQueries,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Create a customer (201) or update the one with this account_id (200)' })
  @ApiCreatedResponse({ description: 'A new customer: `{customer}`', schema: wrapped('customer', V2_CUSTOMER) })
  @ApiOkResponse({ description: 'The customer with this account_id, updated: `{customer}`', schema: wrapped('customer', V2_CUSTOMER) })
  @ApiErrorResponses(400, 401, 403, READ_MODELS_BEHIND)
  async upsert(@CurrentMerchant() merchant: MerchantRecord, @Body() body: UpsertCustomerDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const { customerId, created } = await this.commands.execute(
      new UpsertCustomerCommand({
        merchantId: merchant.id,
        accountId: body.account_id,
        fields: {
          email: body.email_address,
          firstName: body.first_name,
          lastName: body.last_name,
          stripeCustomerId: body.stripe_customer_id,
          chargebeeCustomerId: body.chargebee_customer_id,
        },
      }),
    );
    reply.status(created ? 201 : 200);
    return { customer: v2Customer(written(await this.customers.byId(merchant.id, customerId), `customer ${customerId}`, `GET /v2/customers/${customerId}`)) };
  }

  @Get()
  @ApiOperation({ summary: 'List customers' })
  @ApiOkResponse({ description: 'A list page of Customer', schema: listPage(V2_CUSTOMER) })
  @ApiErrorResponses(400, 401, 403)
  async list(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V2CustomersQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const where: Record<string, Scalar> = { merchant_id: merchant.id };
    if (query.account_id !== undefined) where.account_id = query.account_id;
    const prefix = query.name !== undefined ? { fields: ['first_lc', 'last_lc'], value: query.name } : undefined;
    const page = await this.customers.walk(v2WalkQuery(paging, where, { prefix }));
    return v2Walked(request, requestOrigin(request, this.config.publicBaseUrl), page, v2Customer);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A customer by internal id' })
  @ApiOkResponse({ description: '`{customer}`', schema: wrapped('customer', V2_CUSTOMER) })
  @ApiErrorResponses(400, 401, 403, 404)
  async get(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string) {
    const doc = await this.customers.byId(merchant.id, parseId(raw, 'customer'));
    if (!doc) throw new NotFoundError([`customer ${raw} not found`]);
    return { customer: v2Customer(doc) };
  }
}
