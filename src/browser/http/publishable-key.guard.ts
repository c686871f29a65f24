/**
 * Who may call a browser route: a page on an origin the merchant allows, with the merchant's
 * publishable key in X-Publishable-Key (docs/embedding.md). The guard settles the CORS headers
 * first, so that every answer to an allowed page (a 400 or a 429 too) is one the page can read,
 * then counts the request against the address's limit, then refuses what must be refused:
 *
 * - any Authorization header, and a secret key or token in the key header: such credentials must
 *   never be in a page, and are never taken here (401);
 * - a missing, malformed or unknown publishable key (401);
 * - no Origin, or an origin the merchant does not allow (403, with no CORS headers).
 *
 * Preflights (OPTIONS) carry no key: BrowserController answers them.
 */
import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MERCHANT_LOOKUP, type MerchantLookup, type MerchantRecord } from '../../platform/auth/principal.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { ForbiddenError, UnauthorizedError } from '../../platform/errors.js';
import { BrowserAdmission } from './browser-admission.js';
import { corsHeaders, PUBLISHABLE_KEY_HEADER, requestOrigin, VARY_ORIGIN } from './cors.js';

/** The shape of a publishable key; anything else is not looked up. */
export const PUBLISHABLE_KEY = /^pk_[A-Za-z0-9_]{8,100}$/;
/** What a secret key, an access key or a v2 token starts with. */
const SERVER_CREDENTIAL = /^(sk|mt|ct|ak)_/;

export type BrowserRequest = FastifyRequest & { browserMerchant?: MerchantRecord };

const unauthorized = (message: string) =>
  new UnauthorizedError([message], { 'www-authenticate': 'Publishable realm="referral-api browser", header="X-Publishable-Key"' });

export const NEVER_IN_A_PAGE =
  'the browser routes take only the publishable key (X-Publishable-Key: pk_…): a secret key or merchant token must never be put in a page; if one was, rotate it (POST /admin/merchants/{merchant_id}/secret_key)';

@Injectable()
export class PublishableKeyGuard implements CanActivate {
  constructor(
    @Inject(MERCHANT_LOOKUP) private readonly merchants: MerchantLookup,
    private readonly admission: BrowserAdmission,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<BrowserRequest>();
    if (request.method === 'OPTIONS') return true;
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const header = request.headers[PUBLISHABLE_KEY_HEADER];
    const key = typeof header === 'string' ? header.trim() : undefined;
    const merchant = key !== undefined && PUBLISHABLE_KEY.test(key) ? await this.merchants.byPublishableKey(key) : null;
    const origin = requestOrigin(request.headers.origin);
    // The sandbox's own pages (its demo shop) call it from its own origin, which a browser states in
    // Sec-Fetch-Site (a header no page can set); a same-origin GET carries no Origin at all.
    const ownPage = this.config.mountPath === '/sandbox' && request.headers['sec-fetch-site'] === 'same-origin';
    const listed = origin !== undefined && (merchant?.allowed_origins ?? []).includes(origin);
    const allowed = merchant !== null && (ownPage || listed);
    reply.headers(listed && merchant !== null ? corsHeaders(origin!) : VARY_ORIGIN);
    await this.admission.admit(request.ip, 'request');

    if (request.headers.authorization !== undefined || (key !== undefined && SERVER_CREDENTIAL.test(key))) throw unauthorized(NEVER_IN_A_PAGE);
    if (key === undefined || key === '') throw unauthorized("missing publishable key: send X-Publishable-Key: pk_… (the merchant's publishable key)");
    if (!PUBLISHABLE_KEY.test(key)) throw unauthorized('malformed publishable key: it is pk_ followed by letters, digits and _');
    if (merchant === null) throw unauthorized('unknown publishable key: it may have been rotated (GET /admin/merchants/{merchant_id} shows the current one)');
    if (!allowed && origin === undefined) throw new ForbiddenError(['the browser routes answer pages only: the request has no Origin header']);
    if (!allowed)
      throw new ForbiddenError([`origin ${origin} is not among the merchant's allowed origins (allowed_origins, PATCH /admin/merchants/{merchant_id})`]);
    request.browserMerchant = merchant;
    return true;
  }
}

/** The merchant whose publishable key the request came with (set by PublishableKeyGuard). */
export const BrowserMerchant = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): MerchantRecord => ctx.switchToHttp().getRequest<BrowserRequest>().browserMerchant!,
);
