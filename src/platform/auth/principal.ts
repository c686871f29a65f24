/** Who is calling: set on the request by the guards, read by controllers. */
import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../errors.js';

export interface MerchantRecord {
  id: number;
  name: string;
  access_key: string;
  secret_key: string;
  token_generation: number;
  /** Whether the merchant may see email recipients of shares (spec §2.2, §2.3). */
  can_see_recipients: boolean;
  /** The key of the browser routes (`pk_…`); absent until the merchant has one. */
  publishable_key?: string;
  /** Origins whose pages may call the browser routes; absent = none. */
  allowed_origins?: string[];
}

export type Principal = { kind: 'merchant'; merchant: MerchantRecord } | { kind: 'customer'; merchant: MerchantRecord; customerId: number };

export interface MerchantLookup {
  byId(id: number): Promise<MerchantRecord | null>;
  byAccessKey(accessKey: string): Promise<MerchantRecord | null>;
  byPublishableKey(publishableKey: string): Promise<MerchantRecord | null>;
  /** Whether some merchant allows pages on `origin` (a CORS preflight carries no key to say which). */
  isOriginAllowedByAny(origin: string): Promise<boolean>;
}

export const MERCHANT_LOOKUP = Symbol('MerchantLookup');

export type RequestWithPrincipal = FastifyRequest & { principal?: Principal };

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest<RequestWithPrincipal>().principal!;
});

export const CurrentMerchant = createParamDecorator((_: unknown, ctx: ExecutionContext): MerchantRecord => {
  return ctx.switchToHttp().getRequest<RequestWithPrincipal>().principal!.merchant;
});

export const PUBLIC_ROUTE = 'auth:public';
export const CUSTOMER_TOKEN_ALLOWED = 'auth:customer-token-allowed';

/** The route needs no credentials (only POST /v2/tokens/merchant, spec §5.2 rule 1). */
export const PublicRoute = () => SetMetadata(PUBLIC_ROUTE, true);

/** A customer token may call this route (spec §5.2 rule 4); others need a merchant token. */
/** The route takes a customer token too (spec §5.2 rule 4); the OpenAPI document lists the `customer_token` scheme on it. */
export const CustomerTokenAllowed = () => applyDecorators(SetMetadata(CUSTOMER_TOKEN_ALLOWED, true), ApiBearerAuth('customer_token'));

/** The customer a customer token is scoped to, or undefined for a merchant. */
export function customerScope(principal: Principal): number | undefined {
  return principal.kind === 'customer' ? principal.customerId : undefined;
}

/** Refuses a customer token that asks for another customer's data. */
export function requireOwnCustomer(principal: Principal, customerId: number | undefined): void {
  if (principal.kind === 'customer' && customerId !== undefined && customerId !== principal.customerId) {
    throw new ForbiddenError(['a customer token can only reach its own customer']);
  }
}
