/**
 * Authentication (spec §5): v1 HTTP Basic (access key : secret key), v2 tokens, and the
 * admin bearer token. Secrets are compared in constant time; failures never say which part
 * was wrong.
 */
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { CLOCK, type Clock } from '../clock.js';
import { CONFIG, type Config } from '../config.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.js';
import { ADMIN_TOKEN, AuthFailureLimiter, NO_KEY } from './auth-failure-limiter.js';
import {
  CUSTOMER_TOKEN_ALLOWED,
  MERCHANT_LOOKUP,
  type MerchantLookup,
  type MerchantRecord,
  type Principal,
  PUBLIC_ROUTE,
  RequestWithPrincipal,
} from './principal.js';
import { secretsEqual, VerifiedTokens } from './tokens.js';

const DUMMY_SECRET = 'sk_dummy_value_to_keep_timing_even';

/**
 * Whether the request authenticates with a publishable key (in Authorization, or X-Publishable-Key
 * alone): that key opens the browser routes only, and every other route says so.
 */
function offersPublishableKey(request: RequestWithPrincipal): boolean {
  const header = request.headers.authorization;
  if (header === undefined) return request.headers['x-publishable-key'] !== undefined;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (basic) return Buffer.from(basic[1], 'base64').toString('utf8').startsWith('pk_');
  return /^(?:(?:Bearer|Publishable)\s+)?pk_/i.test(header.trim());
}

const publishableKeyRefused = (challenge: string) =>
  new UnauthorizedError(['a publishable key (pk_…) opens only the browser routes under /browser/v1; this route takes server credentials'], {
    'www-authenticate': challenge,
  });

@Injectable()
export class V1BasicAuthGuard implements CanActivate {
  constructor(
    @Inject(MERCHANT_LOOKUP) private readonly merchants: MerchantLookup,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    const header = request.headers.authorization ?? '';
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const decoded = m ? Buffer.from(m[1], 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    // Throttled per address and access key (auth-failure-limiter.ts).
    const accessKey = colon > 0 ? decoded.slice(0, colon) : undefined;
    const counted = accessKey ?? NO_KEY;
    await this.failures.assertAllowed(request.ip, counted);
    if (offersPublishableKey(request)) throw publishableKeyRefused('Basic realm="referral-api v1"');
    const fail = () =>
      new UnauthorizedError(['missing or invalid credentials: use HTTP Basic with your access key and secret key'], {
        'www-authenticate': 'Basic realm="referral-api v1"',
      });
    if (!header) throw fail();
    const merchant = accessKey !== undefined ? await this.merchants.byAccessKey(accessKey) : null;
    const ok = secretsEqual(merchant?.secret_key ?? DUMMY_SECRET, accessKey !== undefined ? decoded.slice(colon + 1) : '');
    if (!merchant || !ok) {
      // Credentials were offered and were wrong: that counts towards the throttle.
      await this.failures.recordFailure(request.ip, counted);
      throw fail();
    }
    request.principal = { kind: 'merchant', merchant };
    return true;
  }
}

/** Reads `Authorization: Bearer <token>` or a bare token value. */
export function tokenFrom(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : header.trim() || undefined;
}

/** What a v2 token is, once checked: its merchant's, or a customer's of that merchant; else why not. */
export type TokenCheck = { ok: true; principal: Principal } | { ok: false; why: 'invalid' | 'expired' };

/**
 * Checks a v2 token (tokens.ts): its MAC under its merchant's secret key, its generation, and a
 * customer token's expiry. The v2 guard and the browser routes' customer tokens both use it.
 */
@Injectable()
export class TokenVerifier {
  private readonly verified: VerifiedTokens<MerchantRecord>;

  constructor(
    @Inject(MERCHANT_LOOKUP) private readonly merchants: MerchantLookup,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) config: Config,
  ) {
    this.verified = new VerifiedTokens<MerchantRecord>(undefined, config.tokenKeyContext);
  }

  async check(token: string): Promise<TokenCheck> {
    const verified = await this.verified.verify(token, (merchantId) => this.merchants.byId(merchantId));
    if (!verified || verified.parsed.claims.generation !== verified.merchant.token_generation) return { ok: false, why: 'invalid' };
    const { merchant } = verified;
    const claims = verified.parsed.claims;
    if (claims.kind === 'merchant') return { ok: true, principal: { kind: 'merchant', merchant } };
    if (claims.expiresAt <= this.clock.now().getTime()) return { ok: false, why: 'expired' };
    return { ok: true, principal: { kind: 'customer', merchant, customerId: claims.customerId } };
  }
}

/** What a v2 route that refuses its credentials asks for instead (WWW-Authenticate). */
export const V2_CHALLENGE = 'Bearer realm="referral-api v2"';

@Injectable()
export class V2TokenGuard implements CanActivate {
  constructor(
    private readonly tokens: TokenVerifier,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    const fail = (why: string) => new UnauthorizedError([why], { 'www-authenticate': V2_CHALLENGE });
    if (offersPublishableKey(request)) throw publishableKeyRefused(V2_CHALLENGE);
    const token = tokenFrom(request.headers.authorization);
    if (!token) throw fail('missing token: send Authorization: Bearer <token> (see POST /v2/tokens/merchant)');
    const checked = await this.tokens.check(token);
    if (!checked.ok) throw fail(checked.why === 'expired' ? 'customer token has expired; request a new one' : 'invalid or revoked token');
    if (checked.principal.kind === 'customer' && !this.reflector.getAllAndOverride<boolean>(CUSTOMER_TOKEN_ALLOWED, targets)) {
      throw new ForbiddenError(['a customer token cannot call this endpoint; use a merchant token']);
    }
    request.principal = checked.principal;
    return true;
  }
}

@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const expected = this.config.adminToken;
    if (!expected) {
      // The sandbox's routes are the live API's, its admin routes among them, but it has no admin API (docs/security.md).
      if (this.config.mountPath === '/sandbox') throw new NotFoundError(['the sandbox has no admin API: administer the live service under /admin']);
      throw new NotFoundError(['the admin API is disabled: start the service with ADMIN_TOKEN set']);
    }
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    // Guessing the admin token is throttled like guessing keys (docs/security.md).
    await this.failures.assertAllowed(request.ip, ADMIN_TOKEN);
    const header = request.headers.authorization;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!m || !secretsEqual(m[1], expected)) {
      if (header) await this.failures.recordFailure(request.ip, ADMIN_TOKEN);
      throw new UnauthorizedError(['missing or invalid admin token'], { 'www-authenticate': 'Bearer realm="admin"' });
    }
    return true;
  }
}
