/** Admin: create and inspect merchants (beyond the spec; needed to run it). */
import { Body, Controller, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../../platform/auth/guards.js';
import { written } from '../../platform/errors.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses, READ_MODELS_BEHIND } from '../../platform/http/error.schemas.js';
import { wrapped } from '../../platform/http/response-schemas.js';
import {
  ChangeMerchantCommand,
  RegisterMerchantCommand,
  RotateMerchantPublishableKeyCommand,
  RotateMerchantSecretKeyCommand,
} from '../commands/merchant-commands.js';
import { MerchantDirectory } from '../read-models/merchant-lookup.js';
import { attributionDays, MerchantDoc, shareSettings } from '../read-models/merchants.projection.js';
import { CreateMerchantDto, UpdateMerchantDto } from './admin-merchants.dto.js';
import { ADMIN_MERCHANT, MERCHANT_WITH_PUBLISHABLE_KEY, MERCHANT_WITH_SECRET_KEY } from './merchant.schemas.js';

/** The admin view: never the secret key, which is shown once, at creation and at each rotation. */
function presentMerchant(doc: MerchantDoc) {
  return {
    id: doc.id,
    name: doc.name,
    access_key: doc.access_key,
    publishable_key: doc.publishable_key ?? null,
    allowed_origins: doc.allowed_origins ?? [],
    can_see_recipients: doc.can_see_recipients,
    ...shareSettings(doc),
    attribution_days: attributionDays(doc),
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
  };
}

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants')
export class AdminMerchantsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly merchants: MerchantDirectory,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Register a merchant; the answer is the only time this secret key is shown' })
  @ApiCreatedResponse({ description: '`{merchant}` with its secret key', schema: wrapped('merchant', MERCHANT_WITH_SECRET_KEY) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound())
  async create(@Body() body: CreateMerchantDto) {
    const created = await this.commands.execute(new RegisterMerchantCommand({ name: body.name }));
    return {
      merchant: { id: created.id, name: created.name, access_key: created.accessKey, secret_key: created.secretKey, publishable_key: created.publishableKey },
    };
  }

  @Get(':merchant_id')
  @ApiOperation({ summary: 'A merchant (without its secret key)' })
  @ApiOkResponse({ description: '`{merchant}`', schema: wrapped('merchant', ADMIN_MERCHANT) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async get(@Param('merchant_id') raw: string) {
    return { merchant: presentMerchant(await this.find(raw)) };
  }

  @Patch(':merchant_id')
  @ApiOperation({
    summary:
      'Rename a merchant or change its settings (recipients shown, share sending limits, the message policy of customer-token shares, the days a page keeps a visitor’s referral code, the origins allowed to call the browser routes)',
  })
  @ApiOkResponse({ description: '`{merchant}` as changed', schema: wrapped('merchant', ADMIN_MERCHANT) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'), READ_MODELS_BEHIND)
  async update(@Param('merchant_id') raw: string, @Body() body: UpdateMerchantDto) {
    const merchant = await this.find(raw);
    await this.commands.execute(
      new ChangeMerchantCommand({
        merchantId: merchant.id,
        name: body.name,
        settings: {
          canSeeRecipients: body.can_see_recipients,
          shareRecipientsPerCustomerPerDay: body.share_recipients_per_customer_per_day,
          shareRecipientsPerMerchantPerDay: body.share_recipients_per_merchant_per_day,
          customerShareMessagePolicy: body.customer_share_message_policy,
          attributionDays: body.attribution_days,
        },
        allowedOrigins: body.allowed_origins,
      }),
    );
    return { merchant: presentMerchant(written(await this.merchants.doc(merchant.id), `merchant ${merchant.id}`, `GET /admin/merchants/${merchant.id}`)) };
  }

  @Post(':merchant_id/secret_key')
  @HttpCode(200)
  @ApiOperation({
    summary: 'A new secret key, for a merchant whose key may have leaked; the answer is the only time it is shown',
    description:
      'The old key stops working at once: v1 Basic credentials, POST /v2/tokens/merchant and every token issued before (merchant and customer). Webhooks and client-API calls are signed with the new key from then on, retries of earlier ones included.',
  })
  @ApiOkResponse({ description: '`{merchant}` with its new secret key', schema: wrapped('merchant', MERCHANT_WITH_SECRET_KEY) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async rotateSecretKey(@Param('merchant_id') raw: string) {
    const merchant = await this.find(raw);
    const secretKey = await this.commands.execute(new RotateMerchantSecretKeyCommand({ merchantId: merchant.id }));
    return {
      merchant: {
        id: merchant.id,
        name: merchant.name,
        access_key: merchant.access_key,
        secret_key: secretKey,
        publishable_key: merchant.publishable_key ?? null,
      },
    };
  }

  @Post(':merchant_id/publishable_key')
  @HttpCode(200)
  @ApiOperation({
    summary: 'A new publishable key, for a merchant that wants the old one out of circulation',
    description: 'The old key stops opening the browser routes at once; pages must be served with the new one. The secret key and tokens are unchanged.',
  })
  @ApiOkResponse({ description: '`{merchant}` with its new publishable key', schema: wrapped('merchant', MERCHANT_WITH_PUBLISHABLE_KEY) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async rotatePublishableKey(@Param('merchant_id') raw: string) {
    const merchant = await this.find(raw);
    const publishableKey = await this.commands.execute(new RotateMerchantPublishableKeyCommand({ merchantId: merchant.id }));
    return { merchant: { id: merchant.id, name: merchant.name, access_key: merchant.access_key, publishable_key: publishableKey } };
  }

  private find(raw: string): Promise<MerchantDoc> {
    return this.merchants.requireFromPath(raw);
  }
}
