/**
 * v1 and v2 personal-data erasure (not shown in the spec; docs/privacy.md): a privacy tool posts the
 * addresses (and, optionally, customer ids, account ids and an address to confirm to) and gets a
 * job (202), which it may read back.
 */
import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { V1BasicAuthGuard, V2TokenGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { NotFoundError, written } from '../../platform/errors.js';
import { ApiErrorResponses, READ_MODELS_BEHIND } from '../../platform/http/error.schemas.js';
import { parseId } from '../../platform/http/links.js';
import { wrapped } from '../../platform/http/response-schemas.js';
import { EachElement, EachIsEmail, EachIsString, IsEmailAddress } from '../../platform/http/validators.js';
import { docKey } from '../../platform/ids.js';
import { RequestUserDataDeletionCommand } from '../commands/user-data-deletion.js';
import { DeletionJobQueries } from '../read-models/deletion-job-queries.js';
import { DeletionJobDoc } from '../read-models/deletion-jobs.projection.js';
import { USER_DATA_DELETION } from './user-data.schemas.js';

/** Per request: what one job erases, as privacy tools send them (one person, or a day's batch). */
export const MAX_ADDRESSES = 1000;

const positiveId = (element: unknown) => (Number.isSafeInteger(element) && (element as number) > 0 ? null : 'must be a positive integer');
const accountIdFault = (element: unknown) =>
  typeof element !== 'string' ? null : element.length === 0 || element.length > 255 ? 'must be 1 to 255 characters long' : null;

export class UserDataDeletionDto {
  @ApiProperty({
    type: [String],
    example: ['ann@example.com'],
    description: `1 to ${MAX_ADDRESSES} addresses to erase; each bad one is reported with its index (\`email_addresses.3\`)`,
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ADDRESSES)
  @EachIsString()
  @EachIsEmail()
  email_addresses: string[];

  @ApiPropertyOptional({ nullable: true, example: 'privacy@merchant.example', description: 'Where to send a confirmation when the job completes' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  @IsEmailAddress()
  notification_email?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    description: `Customers (the service's ids) to erase too, up to ${MAX_ADDRESSES}; unknown ids are no error`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ADDRESSES)
  @EachElement('isEachPositiveId', positiveId)
  customer_ids?: number[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: 255 },
    description: `Customers by the merchant's own account id, up to ${MAX_ADDRESSES}; unknown ones are no error`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ADDRESSES)
  @EachIsString()
  @EachElement('isEachAccountId', accountIdFault)
  account_ids?: string[];
}

function present(doc: DeletionJobDoc) {
  return {
    id: doc.id,
    status: doc.status,
    email_addresses_count: doc.email_addresses_count,
    customer_ids_count: doc.customer_ids_count,
    account_ids_count: doc.account_ids_count,
    notification_email_given: doc.notification_email_given,
    customers_erased_count: doc.customers_erased_count,
    documents_scrubbed_count: doc.documents_scrubbed_count,
    created_at: doc.created_at,
    erased_at: doc.erased_at,
    completed_at: doc.completed_at,
  };
}

async function submit(commands: CommandBus, jobs: DeletionJobQueries, merchant: MerchantRecord, body: UserDataDeletionDto) {
  const jobId = await commands.execute(
    new RequestUserDataDeletionCommand({
      merchantId: merchant.id,
      emailAddresses: body.email_addresses,
      customerIds: body.customer_ids ?? [],
      accountIds: body.account_ids ?? [],
      notificationEmail: body.notification_email ?? null,
    }),
  );
  return present(written(await jobs.collection.get(docKey(jobId)), `user data deletion ${jobId}`, `GET user_data/delete/${jobId}`));
}

async function jobOf(jobs: DeletionJobQueries, merchant: MerchantRecord, raw: string) {
  const doc = await jobs.byId(merchant.id, parseId(raw, 'user data deletion'));
  if (!doc) throw new NotFoundError([`user data deletion ${raw} not found`]);
  return present(doc);
}

@ApiTags('v2 personal data')
@ApiBearerAuth('token')
@UseGuards(V2TokenGuard)
@Controller('v2/user_data')
export class V2UserDataController {
  constructor(
    private readonly commands: CommandBus,
    private readonly jobs: DeletionJobQueries,
  ) {}

  @Post('delete')
  @HttpCode(202)
  @ApiOperation({ summary: "Erase people's personal data (GDPR art. 17, CCPA): 202 with the job; poll it for its status" })
  @ApiAcceptedResponse({ description: '`{user_data_deletion}`', schema: wrapped('user_data_deletion', USER_DATA_DELETION) })
  @ApiErrorResponses(400, 401, 403, READ_MODELS_BEHIND)
  async delete(@CurrentMerchant() merchant: MerchantRecord, @Body() body: UserDataDeletionDto) {
    return { user_data_deletion: await submit(this.commands, this.jobs, merchant, body) };
  }

  @Get('delete/:id')
  @ApiOperation({ summary: 'An erasure job and its status (processing, completed)' })
  @ApiOkResponse({ description: '`{user_data_deletion}`', schema: wrapped('user_data_deletion', USER_DATA_DELETION) })
  @ApiErrorResponses(400, 401, 403, 404)
  async job(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string) {
    return { user_data_deletion: await jobOf(this.jobs, merchant, raw) };
  }
}

/** v1: v2's operations and records, with v1's Basic auth, answered bare. */
@ApiTags('v1 personal data')
@ApiBasicAuth('basic')
@UseGuards(V1BasicAuthGuard)
@Controller('v1/user_data')
export class V1UserDataController {
  constructor(
    private readonly commands: CommandBus,
    private readonly jobs: DeletionJobQueries,
  ) {}

  @Post('delete')
  @HttpCode(202)
  @ApiOperation({ summary: "Erase people's personal data (GDPR art. 17, CCPA): 202 with the job; poll it for its status" })
  @ApiAcceptedResponse({ description: 'The erasure job', schema: USER_DATA_DELETION })
  @ApiErrorResponses(400, 401, READ_MODELS_BEHIND)
  delete(@CurrentMerchant() merchant: MerchantRecord, @Body() body: UserDataDeletionDto) {
    return submit(this.commands, this.jobs, merchant, body);
  }

  @Get('delete/:id')
  @ApiOperation({ summary: 'An erasure job and its status (processing, completed)' })
  @ApiOkResponse({ description: 'The erasure job', schema: USER_DATA_DELETION })
  @ApiErrorResponses(400, 401, 404)
  job(@CurrentMerchant() merchant: MerchantRecord, @Param('id') raw: string) {
    return jobOf(this.jobs, merchant, raw);
  }
}
