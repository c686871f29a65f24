/**
 * The signed-in customer of a browser route that acts for one (a PURL, a share): a customer token
 * (POST /v2/tokens/customer, made by the merchant's server for the page) in X-Customer-Token,
 * checked as the v2 guard checks it (TokenVerifier), and of the publishable key's merchant. Runs
 * after PublishableKeyGuard, so the CORS headers are set and the merchant is known.
 *
 * Every failure (unknown, malformed, expired, revoked, another merchant's) is one 401 with one
 * message: no answer tells a page which. A merchant token or a secret key here is refused as in
 * X-Publishable-Key, and never echoed.
 */
import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { TokenVerifier } from '../../platform/auth/guards.js';
import { UnauthorizedError } from '../../platform/errors.js';
import { CUSTOMER_TOKEN_HEADER } from './cors.js';
import type { BrowserRequest } from './publishable-key.guard.js';

/** What a secret key, an access key, a merchant token or a publishable key starts with: anything but a customer token. */
const NOT_A_CUSTOMER_TOKEN = /^(sk|mt|ak)_/;

export const CUSTOMER_TOKEN_REFUSED =
  'customer token expired or is invalid: the page should fetch a new one from its server (POST /v2/tokens/customer) and retry';
export const NEVER_A_SERVER_CREDENTIAL =
  'X-Customer-Token takes only a customer token (ct_…, made by your server with POST /v2/tokens/customer): a secret key or merchant token must never be put in a page; if one was, rotate it (POST /admin/merchants/{merchant_id}/secret_key)';

const unauthorized = (message: string) =>
  new UnauthorizedError([message], { 'www-authenticate': 'CustomerToken realm="referral-api browser", header="X-Customer-Token"' });

export type BrowserCustomerRequest = BrowserRequest & { browserCustomerId?: number };

@Injectable()
export class BrowserCustomerGuard implements CanActivate {
  constructor(private readonly tokens: TokenVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<BrowserCustomerRequest>();
    if (request.method === 'OPTIONS') return true;
    const merchant = request.browserMerchant!;
    const header = request.headers[CUSTOMER_TOKEN_HEADER];
    const token = typeof header === 'string' ? header.trim() : undefined;
    if (token === undefined || token === '')
      throw unauthorized('missing customer token: send X-Customer-Token with the token your server made for the signed-in customer (POST /v2/tokens/customer)');
    if (NOT_A_CUSTOMER_TOKEN.test(token)) throw unauthorized(NEVER_A_SERVER_CREDENTIAL);
    const checked = await this.tokens.check(token);
    if (!checked.ok || checked.principal.kind !== 'customer' || checked.principal.merchant.id !== merchant.id) throw unauthorized(CUSTOMER_TOKEN_REFUSED);
    request.browserCustomerId = checked.principal.customerId;
    return true;
  }
}

/** The customer whose token the request came with (set by BrowserCustomerGuard). */
export const BrowserCustomer = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): number => ctx.switchToHttp().getRequest<BrowserCustomerRequest>().browserCustomerId!,
);
