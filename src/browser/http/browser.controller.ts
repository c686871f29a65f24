/**
 * The browser routes (docs/embedding.md, "Browser routes and publishable keys"): what a page on
 * one of the merchant's allowed origins may do with the publishable key alone. Read the merchant's
 * published, active widgets; be served a variant of a group, sticky per visitor; record an email
 * capture; and the CORS preflights of every browser route. The routes that act (a customer's link
 * and shares, code lookups, signed purchases) are in browser-actions.controller.ts. Every other
 * route refuses a publishable key and sends no CORS headers.
 */
import { Body, Controller, Get, HttpCode, Inject, Options, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CaptureEmailCommand } from '../../email-captures/index.js';
import { MERCHANT_LOOKUP, type MerchantLookup, type MerchantRecord } from '../../platform/auth/principal.js';
import { BadRequestError, ForbiddenError, NotFoundError, unrecognizedParameter } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { parseId } from '../../platform/http/links.js';
import { arrayOf, wrapped } from '../../platform/http/response-schemas.js';
import { isOffered, WidgetQueries, type WidgetDoc } from '../../widgets/index.js';
import { chooseVariant, visitorPoint } from '../domain/variant-choice.js';
import { BrowserAdmission } from './browser-admission.js';
import { BrowserEmailCaptureDto, VariantQueryDto } from './browser.dto.js';
import { BROWSER_EMAIL_CAPTURE, BROWSER_WIDGET } from './browser.schemas.js';
import { preflightHeaders, requestOrigin, VARY_ORIGIN } from './cors.js';
import { BrowserMerchant, PublishableKeyGuard } from './publishable-key.guard.js';

/** Most widgets one answer lists: more than any page renders. */
export const MAX_BROWSER_WIDGETS = 100;

const UNAUTHORIZED: [number, string] = [
  401,
  'No publishable key, a malformed or unknown one, or an Authorization header or secret credential (never to be put in a page)',
];
const FORBIDDEN: [number, string] = [403, 'No Origin header, or an origin the merchant does not allow (answered without CORS headers)'];
const THROTTLED: [number, string] = [429, 'Too many requests (or email captures) from this address this minute; wait Retry-After seconds'];

/**
 * Refuses a query string on a route that takes none, as QueryParamsGuard does on the server routes,
 * but after PublishableKeyGuard has set the CORS headers, so that the page can read why.
 */
function refuseQuery(query: Record<string, unknown>): void {
  const names = Object.keys(query ?? {});
  if (names.length > 0) throw new BadRequestError(names.map((name) => unrecognizedParameter(name, [])));
}

/** A widget as a page renders it: nothing internal (reward rules, fraud checks, validation URLs). */
function present(doc: WidgetDoc, distribution: number) {
  const s = doc.settings;
  return {
    id: doc.id,
    name: s.name,
    objective: s.objective,
    widget_group_id: s.widgetGroupId,
    distribution,
    reward_type: s.rewardType,
    reward_amount: s.rewardAmount,
    destination_url: s.destinationUrl,
  };
}

/** Each offered widget with the distribution it is served with among the offered variants of its group. */
function presentAll(offered: WidgetDoc[]) {
  const sizes = new Map<string, number>();
  for (const doc of offered) sizes.set(doc.widget_group_id, (sizes.get(doc.widget_group_id) ?? 0) + 1);
  return offered.map((doc) => present(doc, sizes.get(doc.widget_group_id)! > 1 ? doc.settings.distribution : 100));
}

@ApiTags('browser')
@ApiSecurity('publishable_key')
@UseGuards(PublishableKeyGuard)
@Controller('browser/v1')
export class BrowserController {
  constructor(
    private readonly widgets: WidgetQueries,
    private readonly commandBus: CommandBus,
    private readonly admission: BrowserAdmission,
    @Inject(MERCHANT_LOOKUP) private readonly merchants: MerchantLookup,
  ) {}

  @Get('widgets')
  @ApiOperation({ summary: "The merchant's published, active, unarchived widgets, as a page renders them (at most 100)" })
  @ApiOkResponse({ description: '`{widgets}`', schema: wrapped('widgets', arrayOf(BROWSER_WIDGET)) })
  @ApiErrorResponses(400, UNAUTHORIZED, FORBIDDEN, THROTTLED)
  async list(@BrowserMerchant() merchant: MerchantRecord, @Query() query: Record<string, unknown>) {
    refuseQuery(query);
    return { widgets: presentAll(await this.widgets.offered(merchant.id, MAX_BROWSER_WIDGETS)) };
  }

  @Get('widgets/:id/variant')
  @ApiOperation({
    summary: "The variant of the widget's group this visitor is served: chosen by distribution, the same for the same visitor id",
    description:
      "The visitor's point in [0, 100) is a hash of the group id and the visitor id; the group's published, active variants share that line by distribution, in id order (docs/embedding.md).",
  })
  @ApiOkResponse({ description: '`{widget}`: the variant served', schema: wrapped('widget', BROWSER_WIDGET) })
  @ApiErrorResponses(400, UNAUTHORIZED, FORBIDDEN, [404, 'No published, active widget of the merchant has this id'], THROTTLED)
  async variant(@BrowserMerchant() merchant: MerchantRecord, @Param('id') raw: string, @Query() query: VariantQueryDto) {
    const widget = await this.widgets.requireOffered(merchant.id, parseId(raw, 'widget'));
    const variants = (
      await this.widgets.list({ where: { merchant_id: merchant.id, widget_group_id: widget.widget_group_id }, limit: MAX_BROWSER_WIDGETS })
    ).filter(isOffered);
    const served = presentAll(variants);
    const chosen = chooseVariant(served, visitorPoint(widget.widget_group_id, query.visitor)) ?? present(widget, 100);
    return { widget: chosen };
  }

  @Post('email_captures')
  @HttpCode(201)
  @ApiOperation({ summary: 'Record an email address a visitor gave an email-capture widget (throttled per address)' })
  @ApiCreatedResponse({ description: '`{email_capture}`', schema: wrapped('email_capture', BROWSER_EMAIL_CAPTURE) })
  @ApiErrorResponses(400, UNAUTHORIZED, FORBIDDEN, [404, 'No published, active email-capture widget of the merchant has this widget_id'], THROTTLED)
  async capture(
    @BrowserMerchant() merchant: MerchantRecord,
    @Body() body: BrowserEmailCaptureDto,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    refuseQuery(query);
    await this.admission.admit(request.ip, 'capture');
    const widgetId = Number(body.widget_id);
    const widget = await this.widgets.byId(merchant.id, widgetId);
    if (!widget || !isOffered(widget) || widget.settings.objective !== 'email_capture') {
      throw new NotFoundError([`widget ${widgetId} not found among the published, active email-capture widgets`]);
    }
    const capture = await this.commandBus.execute(
      new CaptureEmailCommand({
        merchantId: merchant.id,
        widgetId: widget.id,
        emailAddress: body.email_address,
        referralCode: body.referral_code,
        newsletterOptIn: body.newsletter_opt_in ?? false,
        ipAddress: request.ip,
      }),
    );
    return {
      email_capture: {
        id: capture.id,
        widget_id: capture.widget_id,
        email_address: capture.email_address,
        newsletter_opt_in: capture.newsletter_opt_in,
        created_at: capture.created_at,
      },
    };
  }

  /** CORS preflights: answered for an origin some merchant allows (a preflight carries no key); the request itself is then held to its merchant's list. */
  @Options(['widgets', 'widgets/:id/variant', 'email_captures', 'referral_links', 'shares', 'referral_codes/:code', 'purchases'])
  @HttpCode(204)
  @ApiExcludeEndpoint()
  async preflight(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    reply.headers(VARY_ORIGIN);
    await this.admission.admit(request.ip, 'request');
    const origin = requestOrigin(request.headers.origin);
    if (origin === undefined) throw new BadRequestError(['a CORS preflight names its Origin']);
    const method = request.headers['access-control-request-method'];
    if (method !== 'GET' && method !== 'POST')
      throw new ForbiddenError([`the browser routes take GET and POST, not ${String(method ?? 'no Access-Control-Request-Method').slice(0, 40)}`]);
    if (!(await this.merchants.isOriginAllowedByAny(origin))) throw new ForbiddenError([`origin ${origin} is not allowed to call the browser routes`]);
    reply.headers(preflightHeaders(origin));
  }
}
