/**
 * v1 and v2 email opt-outs (not shown in the spec; see docs/api-decisions.md): submit a batch as an
 * asynchronous job (202), read the job, list opted-out addresses, remove one.
 */
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsOptional, IsString } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { V1BasicAuthGuard, V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { NotFoundError, written } from '../../platform/errors.js';
import { ApiErrorResponses, READ_MODELS_BEHIND } from '../../platform/http/error.schemas.js';
import { V1QueryOf, V2ListQueryDto } from '../../platform/http/list-query.dto.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { parseId } from '../../platform/http/links.js';
import { parseV1Paging, parseV2Paging, v1Search, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { CONFIRMATION, listPage, searchResults, wrapped } from '../../platform/http/response-schemas.js';
import { EachIsEmail, EachIsString } from '../../platform/http/validators.js';
import { docKey } from '../../platform/ids.js';
import { type ListQuery, Scalar } from '../../platform/read-store/read-store.js';
import { normaliseEmail } from '../domain/email-opt-out.js';
import { RemoveOptOutCommand, SubmitOptOutJobCommand } from '../commands/opt-out-commands.js';
import { OptOutQueries } from '../read-models/opt-out-queries.js';
import { OptOutDoc, OptOutJobDoc } from '../read-models/opt-outs.projection.js';
import { OPT_OUT, OPT_OUT_JOB } from './opt-out.schemas.js';

export class OptOutJobDto {
  @ApiProperty({
    type: [String],
    example: ['someone@example.com'],
    description: '1 to 10,000 addresses; each bad one is reported with its index (`email_addresses.3`), the first 20 and a count of the rest',
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @EachIsString()
  @EachIsEmail()
  email_addresses: string[];
}

export class OptOutsQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  email_address?: string;
}

export class V1OptOutsQueryDto extends V1QueryOf(OptOutsQueryDto) {}

function optOutsFilter(merchant: MerchantRecord, query: { email_address?: string }): Record<string, Scalar> {
  const where: Record<string, Scalar> = { merchant_id: merchant.id };
  if (query.email_address !== undefined) where.email_address = normaliseEmail(query.email_address);
  return where;
}

function presentJob(doc: OptOutJobDoc) {
  return {
    id: doc.id,
    status: doc.status,
    email_addresses_count: doc.email_addresses.length,
    opted_out_count: doc.opted_out_count,
    already_opted_out_count: doc.already_opted_out_count,
    created_at: doc.created_at,
    completed_at: doc.completed_at,
  };
}

async function submitJob(commands: CommandBus, queries: OptOutQueries, merchant: MerchantRecord, body: OptOutJobDto) {
  const jobId = await commands.execute(new SubmitOptOutJobCommand({ merchantId: merchant.id, emailAddresses: body.email_addresses }));
  return presentJob(written(await queries.jobs.get(docKey(jobId)), `opt-out job ${jobId}`, `GET email_opt_out_jobs/${jobId}`));
}

async function jobOf(queries: OptOutQueries, merchant: MerchantRecord, raw: string) {
  const doc = await queries.jobs.get(docKey(parseId(raw, 'opt-out job')));
  if (!doc || doc.merchant_id !== merchant.id) throw new NotFoundError([`opt-out job ${raw} not found`]);
  return presentJob(doc);
}

/** Lists leave out opt-outs whose address is erased: they still suppress it, by its key, but show no address. */
const listed = (doc: OptOutDoc) => doc.email_address !== null;

function presentOptOut(doc: OptOutDoc) {
  return { email_address: doc.email_address, job_id: doc.job_id, created_at: doc.created_at };
}

@ApiTags('v2 email opt-outs')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2')
export class V2OptOutsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: OptOutQueries,
    private readonly linkFactory: LinkFactory,
  ) {}

  @Post('email_opt_out_jobs')
  @HttpCode(202)
  @ApiOperation({ summary: 'Opt out a batch of addresses asynchronously: 202 with the job; poll it for its status' })
  @ApiAcceptedResponse({ description: '`{email_opt_out_job}`', schema: wrapped('email_opt_out_job', OPT_OUT_JOB) })
  @ApiErrorResponses(400, 401, 403, READ_MODELS_BEHIND)
  async submit(@CurrentMerchant() merchant: MerchantRecord, @Body() body: OptOutJobDto) {
    return { email_opt_out_job: await submitJob(this.commands, this.queries, merchant, body) };
  }

  @Get('email_opt_out_jobs/:id')
  @ApiOperation({ summary: 'An opt-out job and its status (processing, completed)' })
  @ApiOkResponse({ description: '`{email_opt_out_job}`', schema: wrapped('email_opt_out_job', OPT_OUT_JOB) })
  @ApiErrorResponses(400, 401, 403, 404)
  async job(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string) {
    return { email_opt_out_job: await jobOf(this.queries, merchant, raw) };
  }

  @Get('email_opt_outs')
  @ApiOperation({ summary: 'Opted-out addresses' })
  @ApiOkResponse({ description: 'A list page of opted-out addresses', schema: listPage(OPT_OUT) })
  @ApiErrorResponses(400, 401, 403)
  async list(@CurrentMerchant() merchant: MerchantRecord, @Query() query: OptOutsQueryDto, @Req() request: FastifyRequest) {
    const paging = parseV2Paging(query, request);
    const page = await this.queries.optOuts.walk(v2WalkQuery(paging, optOutsFilter(merchant, query)));
    return v2Walked(request, this.linkFactory.origin(request), { ...page, docs: page.docs.filter(listed) }, presentOptOut);
  }

  @Delete('email_opt_outs/:email_address')
  @ApiOperation({ summary: 'Remove an address from the opt-out list (404 when it is not on it)' })
  @ApiOkResponse({ description: 'Confirmation', schema: CONFIRMATION })
  @ApiErrorResponses(400, 401, 403, [404, 'The address is not opted out'])
  async remove(@CurrentMerchant() merchant: MerchantRecord, @Param('email_address') email: string) {
    await this.commands.execute(new RemoveOptOutCommand({ merchantId: merchant.id, emailAddress: email }));
    return { success: true };
  }
}

/** v1 email opt-outs (spec §4.1: "not shown"): v2's operations and records, with v1's Basic auth and offset paging, answered bare. */
@ApiTags('v1 email opt-outs')
@ApiBasicAuth('basic')
@UseGuards(V1BasicAuthGuard)
@Controller('v1')
export class V1OptOutsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: OptOutQueries,
  ) {}

  @Post('email_opt_out_jobs')
  @HttpCode(202)
  @ApiOperation({ summary: 'Opt out a batch of addresses asynchronously: 202 with the job; poll it for its status' })
  @ApiAcceptedResponse({ description: 'The opt-out job', schema: OPT_OUT_JOB })
  @ApiErrorResponses(400, 401, READ_MODELS_BEHIND)
  submit(@CurrentMerchant() merchant: MerchantRecord, @Body() body: OptOutJobDto) {
    return submitJob(this.commands, this.queries, merchant, body);
  }

  @Get('email_opt_out_jobs/:id')
  @ApiOperation({ summary: 'An opt-out job and its status (processing, completed)' })
  @ApiOkResponse({ description: 'The opt-out job', schema: OPT_OUT_JOB })
  @ApiErrorResponses(400, 401, 404)
  job(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string) {
    return jobOf(this.queries, merchant, raw);
  }

  @Get('email_opt_outs')
  @ApiOperation({ summary: 'Search opted-out addresses' })
  @ApiOkResponse({ description: 'SearchResults of opted-out addresses', schema: searchResults(OPT_OUT) })
  @ApiErrorResponses(400, 401)
  search(@CurrentMerchant() merchant: MerchantRecord, @Query() query: V1OptOutsQueryDto) {
    const optOuts = this.queries.optOuts;
    const source = {
      list: async (q: ListQuery) => (await optOuts.list(q)).filter(listed),
      count: (q: Omit<ListQuery, 'limit' | 'offset' | 'after'>) => optOuts.count(q),
    };
    return v1Search(source, parseV1Paging(query), optOutsFilter(merchant, query), (docs) => docs.map(presentOptOut));
  }

  @Delete('email_opt_outs/:email_address')
  @ApiOperation({ summary: 'Remove an address from the opt-out list (404 when it is not on it)' })
  @ApiOkResponse({ description: 'Confirmation', schema: CONFIRMATION })
  @ApiErrorResponses(400, 401, [404, 'The address is not opted out'])
  async remove(@CurrentMerchant() merchant: MerchantRecord, @Param('email_address') email: string) {
    await this.commands.execute(new RemoveOptOutCommand({ merchantId: merchant.id, emailAddress: email }));
    return { success: true };
  }
}
