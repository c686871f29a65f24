/** v1 customers (spec §4.1): search, detail by internal id, and lookup by account id or email. */
import { Controller, Get, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V1BasicAuthGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { parseId } from '../../platform/http/links.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { parseV1Paging, SearchResults, v1Search } from '../../platform/http/paging.js';
import { searchResults } from '../../platform/http/response-schemas.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { CustomerQueries } from '../read-models/customer-queries.js';
import { CustomerDoc } from '../read-models/customers.projection.js';
import { V1CustomerInfoQueryDto, V1CustomersQueryDto } from './customers.dto.js';
import { v1CustomerExcerpt } from './customer.presenters.js';
import { V1_CUSTOMER_EXCERPT } from './customer.schemas.js';
import { V1CustomerPresenter } from './v1-customer.presenter.js';
import { V1_CUSTOMER } from './v1-customer.schemas.js';

@ApiTags('v1 customers')
@ApiBasicAuth('basic')
@UseGuards(V1BasicAuthGuard)
@Controller('v1')
export class V1CustomersController {
  constructor(
    private readonly customers: CustomerQueries,
    private readonly presenter: V1CustomerPresenter,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Get('customers')
  @ApiOperation({ summary: 'Search customers' })
  @ApiOkResponse({ description: 'SearchResults of CustomerExcerpt', schema: searchResults(V1_CUSTOMER_EXCERPT) })
  @ApiErrorResponses(400, 401)
  async search(
    @CurrentMerchant() merchant: MerchantRecord,
    @Query() query: V1CustomersQueryDto,
    @Req() request: FastifyRequest,
  ): Promise<SearchResults<ReturnType<typeof v1CustomerExcerpt>>> {
    const where: Record<string, Scalar> = { merchant_id: merchant.id };
    if (query.account_id !== undefined) where.account_id = query.account_id;
    const links = this.linkFactory.for(request);
    return v1Search(this.customers, parseV1Paging(query), where, (docs) => docs.map((doc) => v1CustomerExcerpt(doc, links)));
  }

  @Get('customers/:id')
  @ApiOperation({ summary: 'A customer by internal id (the detail_uri of a search result)' })
  @ApiOkResponse({ description: 'Customer', schema: V1_CUSTOMER })
  @ApiErrorResponses(400, 401, 404)
  async get(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Req() request: FastifyRequest) {
    const doc = await this.customers.byId(merchant.id, parseId(raw, 'customer'));
    if (!doc) throw new NotFoundError([`customer ${raw} not found`]);
    return this.present(doc, request);
  }

  @Get('customer_info')
  @ApiOperation({ summary: 'A customer by account_id and/or email (at least one; both must match when both are given)' })
  @ApiOkResponse({ description: 'Customer', schema: V1_CUSTOMER })
  @ApiErrorResponses(400, 401, [404, 'No customer matches the given account_id/email'])
  async info(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1CustomerInfoQueryDto, @Req() request: FastifyRequest) {
    if (query.account_id === undefined && query.email === undefined) {
      throw new BadRequestError(['account_id or email is required']);
    }
    const doc = await this.customers.find(merchant.id, query);
    if (!doc) throw new NotFoundError(['no customer matches the given account_id/email']);
    return this.present(doc, request);
  }

  private present(doc: CustomerDoc, request: FastifyRequest) {
    return this.presenter.full(doc, this.linkFactory.for(request));
  }
}
