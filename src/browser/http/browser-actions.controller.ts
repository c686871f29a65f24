/**
 * The browser routes that act (docs/embedding.md): for a signed-in customer (X-Customer-Token),
 * its personal link and its shares; for any visitor, a referral code's lookup and a purchase the
 * merchant's server signed. Each goes through the use case its v2 route uses, so what a page
 * records is what the merchant's server would have recorded.
 */
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { type MerchantRecord } from '../../platform/auth/principal.js';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { BadRequestError, NotFoundError, unrecognizedParameter } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { wrapped } from '../../platform/http/response-schemas.js';
import { StrictValidationPipe } from '../../platform/http/validation.js';
import { CustomerQueries } from '../../customers/index.js';
import { MerchantDirectory, attributionDays } from '../../merchants/index.js';
import { SaleRequests, CreatePurchaseDto, SalesQueries } from '../../sales/index.js';
import { EnsurePersonalLinkCommand, ReferralLinkQueries } from '../../referral-links/index.js';
import { ShareRequests, CreateShareDto, ShareQueries } from '../../shares/index.js';
import { WidgetQueries } from '../../widgets/index.js';
import { orderClaims, verifyPurchaseToken } from '../domain/purchase-token.js';
import { BrowserAdmission } from './browser-admission.js';
import { BrowserPurchaseDto, BrowserReferralLinkDto, BrowserShareDto } from './browser.dto.js';
import { BROWSER_PURCHASE, BROWSER_REFERRAL_CODE, BROWSER_REFERRAL_LINK, BROWSER_SHARE } from './browser.schemas.js';
import { BrowserCustomer, BrowserCustomerGuard } from './customer-token.guard.js';
import { BrowserMerchant, PublishableKeyGuard } from './publishable-key.guard.js';
import { foldCode } from '../../platform/codes.js';

const UNAUTHORIZED: [number, string] = [
  401,
  'No publishable key, a malformed or unknown one, or an Authorization header or secret credential (never to be put in a page)',
];
const CUSTOMER_UNAUTHORIZED: [number, string] = [
  401,
  'As for every browser route; or no customer token, or one expired, invalid or of another merchant (fetch a new one from your server), or a server credential in X-Customer-Token',
];
const FORBIDDEN: [number, string] = [403, 'No Origin header, or an origin the merchant does not allow (answered without CORS headers)'];
const CUSTOMER_TOKEN_HEADER_DOC = {
  name: 'X-Customer-Token',
  required: true,
  description: 'A customer token (ct_…) the merchant’s server made for the signed-in customer (POST /v2/tokens/customer)',
};

/** A referral code as a cookie holds it: what else is no code of any merchant (400). */
const CODE_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;
/** What of a Referer header a purchase keeps (the v2 body's limit). */
const REFERRER_MAX = 2000;

function refuseQuery(query: Record<string, unknown>): void {
  const names = Object.keys(query ?? {});
  if (names.length > 0) throw new BadRequestError(names.map((name) => unrecognizedParameter(name, [])));
}

@ApiTags('browser')
@ApiSecurity('publishable_key')
@UseGuards(PublishableKeyGuard)
@Controller('browser/v1')
export class BrowserActionsController {
  private readonly validation = new StrictValidationPipe();

  constructor(
    private readonly commands: CommandBus,
    private readonly admission: BrowserAdmission,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly merchants: MerchantDirectory,
    private readonly links: ReferralLinkQueries,
    private readonly shareRequests: ShareRequests,
    private readonly shares: ShareQueries,
    private readonly saleRequests: SaleRequests,
    private readonly sales: SalesQueries,
    private readonly linkFactory: LinkFactory,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post('referral_links')
  @HttpCode(201)
  @UseGuards(BrowserCustomerGuard)
  @ApiHeader(CUSTOMER_TOKEN_HEADER_DOC)
  @ApiOperation({
    summary:
      "The signed-in customer's personal referral link for a widget: made on the first call, the same code on every call (as POST /v2/personal_referral_links)",
  })
  @ApiCreatedResponse({ description: '`{referral_link}`', schema: wrapped('referral_link', BROWSER_REFERRAL_LINK) })
  @ApiErrorResponses(
    400,
    CUSTOMER_UNAUTHORIZED,
    FORBIDDEN,
    [404, 'No published, active widget of the merchant has this widget_id'],
    [429, 'Too many requests from this address this minute'],
  )
  async referralLink(
    @BrowserMerchant() merchant: MerchantRecord,
    @BrowserCustomer() customerId: number,
    @Body() body: BrowserReferralLinkDto,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    refuseQuery(query);
    const widget = await this.widgets.requireOffered(merchant.id, Number(body.widget_id));
    const customer = await this.customers.byId(merchant.id, customerId);
    if (!customer) throw new NotFoundError([`customer ${customerId} not found`]);
    const { code } = await this.commands.execute(
      new EnsurePersonalLinkCommand({
        merchantId: merchant.id,
        widgetId: widget.id,
        advocate: { customerId },
        advocateEmail: null,
        defaultAdvocateEmail: customer.email,
        linkParameters: undefined,
        ipAddress: request.ip ?? null,
      }),
    );
    return { referral_link: { code, url: this.linkFactory.for(request).trackable(code), widget_id: widget.id } };
  }

  @Post('shares')
  @HttpCode(201)
  @UseGuards(BrowserCustomerGuard)
  @ApiHeader(CUSTOMER_TOKEN_HEADER_DOC)
  @ApiOperation({
    summary:
      'A share by the signed-in customer, with its own new referral code: by email (the service emails the recipients, as POST /v2/shares with a customer token) or through a social channel (the page posts the link)',
    description:
      "The share's reward_email_address is the customer's own address (400 when the customer has none). A social share has no recipients, message, emails or reminder, and counts as one recipient against the merchant's daily share limits.",
  })
  @ApiCreatedResponse({ description: '`{share}`', schema: wrapped('share', BROWSER_SHARE) })
  @ApiErrorResponses(
    400,
    CUSTOMER_UNAUTHORIZED,
    FORBIDDEN,
    [404, 'No published, active widget of the merchant has this widget_id'],
    [429, 'Too many requests or shares from this address this minute, or a daily share limit of the merchant is reached'],
  )
  async share(
    @BrowserMerchant() merchant: MerchantRecord,
    @BrowserCustomer() customerId: number,
    @Body() body: BrowserShareDto,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    refuseQuery(query);
    if (body.channel === 'email' && body.email_recipients === undefined) {
      throw new BadRequestError([{ property: 'email_recipients', code: 'missing', message: 'email_recipients is required for an email share' }]);
    }
    if (body.channel !== 'email') {
      const emailOnly = (['email_recipients', 'message'] as const).filter((field) => body[field] !== undefined);
      if (emailOnly.length > 0)
        throw new BadRequestError(
          emailOnly.map((field) => ({
            property: field,
            code: 'invalid',
            message: `${field} is for an email share only: a ${body.channel} share is posted by the page`,
          })),
        );
    }
    await this.admission.admit(request.ip, 'share');
    const customer = await this.customers.byId(merchant.id, customerId);
    if (!customer) throw new NotFoundError([`customer ${customerId} not found`]);
    if (!customer.email) {
      throw new BadRequestError([
        {
          property: 'reward_email_address',
          code: 'missing',
          message: "the customer has no email address, which a share is sent from (reward_email_address): the merchant's server sets it (POST /v2/customers)",
        },
      ]);
    }
    const requestIp = request.ip ?? null;
    const shareId =
      body.channel === 'email'
        ? await this.shareRequests.create(
            merchant.id,
            customerId,
            {
              widget_id: body.widget_id,
              reward_email_address: customer.email,
              email_recipients: body.email_recipients!,
              message: body.message,
              newsletter_opt_in: body.newsletter_opt_in,
            } as CreateShareDto,
            'widget',
            { requestIp },
          )
        : await this.shareRequests.createSocial(merchant.id, customerId, {
            widgetId: Number(body.widget_id),
            channel: body.channel,
            rewardEmailAddress: customer.email,
            newsletterOptIn: body.newsletter_opt_in ?? false,
            requestIp,
          });
    const share = await this.shares.share(merchant.id, shareId);
    return {
      share: {
        id: share.id,
        widget_id: share.widget_id,
        channel: share.channel,
        referral_code: share.referral_code,
        url: this.linkFactory.for(request).trackable(share.referral_code),
      },
    };
  }

  @Get('referral_codes/:code')
  @ApiParam({ name: 'code', schema: { type: 'string', pattern: CODE_SHAPE.source }, description: 'The code the visitor arrived with (letter case ignored)' })
  @ApiOperation({ summary: "Whether a referral code a visitor arrived with is one of the merchant's (any link type), and how many days the page keeps it" })
  @ApiOkResponse({ description: '`{referral_code}`', schema: wrapped('referral_code', BROWSER_REFERRAL_CODE) })
  @ApiErrorResponses(
    [400, 'A code that is not 1 to 64 letters, digits, - or _, or a query string'],
    UNAUTHORIZED,
    FORBIDDEN,
    [404, 'No code of the merchant (another merchant’s is answered alike)'],
    [429, 'Too many requests from this address this minute'],
  )
  async referralCode(@BrowserMerchant() merchant: MerchantRecord, @Param('code') code: string, @Query() query: Record<string, unknown>) {
    refuseQuery(query);
    if (!CODE_SHAPE.test(code))
      throw new BadRequestError([{ property: 'code', code: 'invalid', message: 'a referral code is 1 to 64 letters, digits, - or _' }]);
    const link = await this.links.byCode(merchant.id, code);
    if (!link) throw new NotFoundError([`referral code ${code} not found`]);
    const doc = (await this.merchants.doc(merchant.id))!;
    return { referral_code: { code: link.code, attribution_days: attributionDays(doc) } };
  }

  @Post('purchases')
  @HttpCode(201)
  @ApiOperation({
    summary:
      "Record a purchase from the order page: the order is a JWT the merchant's server signed (HS256, its secret key); a referral code from the visitor's cookie is used when the token carries none",
    description:
      'Recorded as POST /v2/purchases records it (attribution, conversion, reward, webhooks), with the request’s address and Referer. A token whose order_id is recorded already is a 409 and changes nothing (docs/embedding.md, "Trusting purchases from a page").',
  })
  @ApiCreatedResponse({ description: '`{purchase}`', schema: wrapped('purchase', BROWSER_PURCHASE) })
  @ApiErrorResponses(
    [
      400,
      'A purchase_token that is not a JWT, without exp or with one more than 24 hours ahead, or with a missing or bad order claim (named); a body referral_code other than the token’s',
    ],
    [
      401,
      'As for every browser route; or a purchase_token that does not verify with the merchant’s secret key (another key, another algorithm, none), or has expired',
    ],
    FORBIDDEN,
    [404, 'The token names an unknown widget_id or customer_id'],
    [409, 'The order_id is recorded already (a replayed token): nothing changes'],
    [429, 'Too many requests or purchases from this address this minute'],
  )
  async purchase(
    @BrowserMerchant() merchant: MerchantRecord,
    @Body() body: BrowserPurchaseDto,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    refuseQuery(query);
    await this.admission.admit(request.ip, 'purchase');
    const claims = orderClaims(await verifyPurchaseToken(body.purchase_token, merchant.secret_key, this.clock.now()));
    const order = await this.orderOf(claims);
    if (order.referral_code !== undefined && body.referral_code !== undefined && foldCode(order.referral_code) !== foldCode(body.referral_code)) {
      throw new BadRequestError([
        { property: 'referral_code', code: 'invalid', message: 'referral_code differs from the one the purchase_token carries: the signed one is the order’s' },
      ]);
    }
    const referer = request.headers.referer;
    const purchaseId = await this.saleRequests.recordPurchase(merchant, {
      ...order,
      referral_code: order.referral_code ?? body.referral_code,
      ip_address: request.ip,
      referrer: typeof referer === 'string' && referer !== '' ? referer.slice(0, REFERRER_MAX) : undefined,
    } as CreatePurchaseDto);
    const recorded = await this.sales.purchase(merchant.id, purchaseId);
    return { purchase: { id: recorded.id, order_id: recorded.order_id, referral_code: recorded.referral_code, conversion_id: recorded.conversion_id } };
  }

  /** The token's order claims under the v2 purchase body's rules; a fault names its claim (`purchase_token.<claim>`). */
  private async orderOf(claims: Record<string, unknown>): Promise<CreatePurchaseDto> {
    const faults: string[] = (['ip_address', 'referrer'] as const).filter((claim) => claims[claim] !== undefined);
    if (faults.length > 0) {
      throw new BadRequestError(
        faults.map((claim) => ({
          property: `purchase_token.${claim}`,
          code: 'invalid',
          message: `purchase_token: the ${claim} claim is not taken (the request's own is recorded)`,
        })),
      );
    }
    try {
      return (await this.validation.transform(claims, { type: 'body', metatype: CreatePurchaseDto, data: '' })) as CreatePurchaseDto;
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      throw new BadRequestError(
        error.errors.map((e) =>
          typeof e === 'string' ? `purchase_token: ${e}` : { ...e, property: `purchase_token.${e.property}`, message: `purchase_token: ${e.message}` },
        ),
      );
    }
  }
}
