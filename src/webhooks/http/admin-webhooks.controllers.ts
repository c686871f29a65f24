/**
 * Admin: a merchant's webhook endpoints, client-API URLs, custom headers, and the delivery log
 * with redelivery (docs/webhooks.md). Unknown merchants are 404.
 */
import { Body, Controller, Delete, Get, HttpCode, Inject, Injectable, Param, Patch, Post, Put, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { MerchantDirectory } from '../../merchants/index.js';
import { AdminGuard } from '../../platform/auth/guards.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { BadRequestError } from '../../platform/errors.js';
import { ADMIN_UNAUTHORIZED, adminNotFound, ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { optionalIdFilter } from '../../platform/http/list-query.dto.js';
import { parseId, requestOrigin } from '../../platform/http/links.js';
import { parseV2Paging, v2Walked, v2WalkQuery } from '../../platform/http/paging.js';
import { arrayOf, listPage, object, wrapped } from '../../platform/http/response-schemas.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { ConfigureClientApiCommand, ConfigureCustomHeadersCommand, IntegrationSettingsQueries } from '../../integrations/index.js';
import { RedeliverWebhookCommand } from '../commands/redeliver-webhook.js';
import { ChangeWebhookEndpointCommand, CreateWebhookEndpointCommand, DeleteWebhookEndpointCommand } from '../commands/webhook-endpoint-commands.js';
import { WebhookDeliveryQueries, WebhookEndpointQueries } from '../read-models/webhook-queries.js';
import { ClientApiDto, CreateWebhookEndpointDto, CustomHeadersDto, UpdateWebhookEndpointDto, WebhookDeliveriesQueryDto } from './webhooks.dto.js';
import { presentClientApi, presentCustomHeaders, presentDelivery, presentEndpoint } from './webhook.presenters.js';
import { CLIENT_API, CUSTOM_HEADERS, WEBHOOK_DELIVERY, WEBHOOK_ENDPOINT } from './webhook.schemas.js';

/** The merchant of an admin path, or 404. */
@Injectable()
export class AdminMerchantParam {
  constructor(private readonly merchants: MerchantDirectory) {}

  async id(raw: string): Promise<number> {
    return (await this.merchants.requireFromPath(raw)).id;
  }
}

@ApiTags('admin webhooks')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id/webhook_endpoints')
export class AdminWebhookEndpointsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly endpoints: WebhookEndpointQueries,
    private readonly merchant: AdminMerchantParam,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a webhook endpoint; without `events` it receives every kind' })
  @ApiCreatedResponse({ description: '`{webhook_endpoint}`', schema: wrapped('webhook_endpoint', WEBHOOK_ENDPOINT) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async create(@Param('merchant_id') rawMerchant: string, @Body() body: CreateWebhookEndpointDto) {
    const merchantId = await this.merchant.id(rawMerchant);
    const endpointId = await this.commands.execute(new CreateWebhookEndpointCommand({ merchantId, url: body.url, events: body.events ?? null }));
    return { webhook_endpoint: presentEndpoint(await this.endpoints.require(merchantId, endpointId)) };
  }

  @Get()
  @ApiOperation({ summary: "A merchant's webhook endpoints, oldest first" })
  @ApiOkResponse({ description: '`{webhook_endpoints}`: those not deleted, oldest first', schema: object({ webhook_endpoints: arrayOf(WEBHOOK_ENDPOINT) }) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async list(@Param('merchant_id') rawMerchant: string) {
    const merchantId = await this.merchant.id(rawMerchant);
    return { webhook_endpoints: (await this.endpoints.ofMerchant(merchantId)).map(presentEndpoint) };
  }

  @Get(':endpoint_id')
  @ApiOperation({ summary: 'A webhook endpoint' })
  @ApiOkResponse({ description: '`{webhook_endpoint}`', schema: wrapped('webhook_endpoint', WEBHOOK_ENDPOINT) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or webhook endpoint (a deleted one included)'))
  async get(@Param('merchant_id') rawMerchant: string, @Param('endpoint_id') rawEndpoint: string) {
    const merchantId = await this.merchant.id(rawMerchant);
    return { webhook_endpoint: presentEndpoint(await this.endpoints.require(merchantId, parseId(rawEndpoint, 'webhook endpoint'))) };
  }

  @Patch(':endpoint_id')
  @ApiOperation({ summary: "Change a webhook endpoint's URL or kinds (pending deliveries go to the new URL)" })
  @ApiOkResponse({ description: '`{webhook_endpoint}` as changed', schema: wrapped('webhook_endpoint', WEBHOOK_ENDPOINT) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or webhook endpoint (a deleted one included)'))
  async update(@Param('merchant_id') rawMerchant: string, @Param('endpoint_id') rawEndpoint: string, @Body() body: UpdateWebhookEndpointDto) {
    const merchantId = await this.merchant.id(rawMerchant);
    const endpointId = parseId(rawEndpoint, 'webhook endpoint');
    await this.endpoints.require(merchantId, endpointId);
    await this.commands.execute(new ChangeWebhookEndpointCommand({ merchantId, endpointId, url: body.url, events: body.events }));
    return { webhook_endpoint: presentEndpoint(await this.endpoints.require(merchantId, endpointId)) };
  }

  @Delete(':endpoint_id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted; its pending deliveries are abandoned (reason endpoint_deleted)' })
  @ApiOperation({ summary: 'Delete a webhook endpoint' })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or webhook endpoint (a deleted one included)'))
  async remove(@Param('merchant_id') rawMerchant: string, @Param('endpoint_id') rawEndpoint: string): Promise<void> {
    const merchantId = await this.merchant.id(rawMerchant);
    const endpointId = parseId(rawEndpoint, 'webhook endpoint');
    await this.endpoints.require(merchantId, endpointId);
    await this.commands.execute(new DeleteWebhookEndpointCommand({ merchantId, endpointId }));
  }
}

@ApiTags('admin webhooks')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id')
export class AdminIntegrationSettingsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly settings: IntegrationSettingsQueries,
    private readonly merchant: AdminMerchantParam,
  ) {}

  @Put('client_api')
  @ApiOperation({ summary: 'Set the client-API URLs (share instructions, reward validation); null removes one' })
  @ApiOkResponse({ description: '`{client_api}` as set', schema: wrapped('client_api', CLIENT_API) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async putClientApi(@Param('merchant_id') rawMerchant: string, @Body() body: ClientApiDto) {
    const merchantId = await this.merchant.id(rawMerchant);
    await this.commands.execute(
      new ConfigureClientApiCommand({ merchantId, shareInstructionsUrl: body.share_instructions_url, rewardValidationUrl: body.reward_validation_url }),
    );
    return { client_api: presentClientApi(await this.settings.doc(merchantId)) };
  }

  @Get('client_api')
  @ApiOperation({ summary: 'The client-API URLs (null where none is set)' })
  @ApiOkResponse({ description: '`{client_api}`', schema: wrapped('client_api', CLIENT_API) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async getClientApi(@Param('merchant_id') rawMerchant: string) {
    return { client_api: presentClientApi(await this.settings.doc(await this.merchant.id(rawMerchant))) };
  }

  @Put('custom_headers')
  @ApiOperation({ summary: 'Set the custom headers of every webhook and client-API request (replaces the whole set)' })
  @ApiOkResponse({ description: '`{custom_headers}` as set', schema: wrapped('custom_headers', CUSTOM_HEADERS) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async putCustomHeaders(@Param('merchant_id') rawMerchant: string, @Body() body: CustomHeadersDto) {
    const merchantId = await this.merchant.id(rawMerchant);
    await this.commands.execute(new ConfigureCustomHeadersCommand({ merchantId, headers: body.headers, replaceSignature: body.replace_signature ?? false }));
    return { custom_headers: presentCustomHeaders(await this.settings.doc(merchantId)) };
  }

  @Get('custom_headers')
  @ApiOperation({ summary: 'The custom headers' })
  @ApiOkResponse({ description: '`{custom_headers}`', schema: wrapped('custom_headers', CUSTOM_HEADERS) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async getCustomHeaders(@Param('merchant_id') rawMerchant: string) {
    return { custom_headers: presentCustomHeaders(await this.settings.doc(await this.merchant.id(rawMerchant))) };
  }
}

@ApiTags('admin webhooks')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/merchants/:merchant_id/webhook_deliveries')
export class AdminWebhookDeliveriesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly deliveries: WebhookDeliveryQueries,
    private readonly merchant: AdminMerchantParam,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The delivery log, oldest first, with every attempt; v2 paging (cursor, limit, from, to)' })
  @ApiOkResponse({ description: 'A list page of webhook deliveries', schema: listPage(WEBHOOK_DELIVERY) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant'))
  async list(@Param('merchant_id') rawMerchant: string, @Query() query: WebhookDeliveriesQueryDto, @Req() request: FastifyRequest) {
    const merchantId = await this.merchant.id(rawMerchant);
    const errors: string[] = [];
    const endpointId = optionalIdFilter('endpoint_id', query.endpoint_id, errors);
    if (errors.length > 0) throw new BadRequestError(errors);
    const paging = parseV2Paging(query, request);
    const where: Record<string, Scalar> = { merchant_id: merchantId };
    if (query.status !== undefined) where.status = query.status;
    if (query.kind !== undefined) where.kind = query.kind;
    if (endpointId !== undefined) where.endpoint_id = endpointId;
    // The page is cut from the entries; only the deliveries it shows are read from their streams.
    const page = v2Walked(request, requestOrigin(request, this.config.publicBaseUrl), await this.deliveries.walk(v2WalkQuery(paging, where)), (entry) => entry);
    return { ...page, results: (await this.deliveries.details(page.results)).map(presentDelivery) };
  }

  @Get(':delivery_id')
  @ApiOperation({ summary: 'One delivery with every attempt' })
  @ApiOkResponse({ description: '`{webhook_delivery}`', schema: wrapped('webhook_delivery', WEBHOOK_DELIVERY) })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or webhook delivery'))
  async get(@Param('merchant_id') rawMerchant: string, @Param('delivery_id') rawDelivery: string) {
    const merchantId = await this.merchant.id(rawMerchant);
    return { webhook_delivery: await this.shown(merchantId, parseId(rawDelivery, 'webhook delivery')) };
  }

  @Post(':delivery_id/redeliver')
  @HttpCode(202)
  @ApiAcceptedResponse({
    description: '`{webhook_delivery}`, pending again: a new round of attempts is due now; the send happens in the background',
    schema: wrapped('webhook_delivery', WEBHOOK_DELIVERY),
  })
  @ApiErrorResponses(400, ADMIN_UNAUTHORIZED, adminNotFound('Unknown merchant or webhook delivery'), [409, "The delivery's endpoint was deleted"])
  @ApiOperation({ summary: 'Send a delivery again, whatever its status (409 when its endpoint was deleted)' })
  async redeliver(@Param('merchant_id') rawMerchant: string, @Param('delivery_id') rawDelivery: string) {
    const merchantId = await this.merchant.id(rawMerchant);
    const deliveryId = parseId(rawDelivery, 'webhook delivery');
    await this.commands.execute(new RedeliverWebhookCommand({ merchantId, deliveryId }));
    return { webhook_delivery: await this.shown(merchantId, deliveryId) };
  }

  private async shown(merchantId: number, deliveryId: number) {
    const [doc] = await this.deliveries.details([await this.deliveries.require(merchantId, deliveryId)]);
    return presentDelivery(doc);
  }
}
