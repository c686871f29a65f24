/**
 * The purchase token of POST /browser/v1/purchases (docs/embedding.md, "Trusting purchases from a
 * page"): an HS256 JWT the merchant's server signs with its secret key, so that a page can report
 * an order whose fields it cannot change. Only HS256 is taken (never `none`, never another
 * algorithm), `exp` is required and at most a day ahead. The token is never echoed.
 */
import { errors, jwtVerify } from 'jose';
import { BadRequestError, UnauthorizedError } from '../../platform/errors.js';

/** The longest a purchase token may live: long enough for a slow checkout page, short enough to bound its use. */
export const MAX_PURCHASE_TOKEN_SECONDS = 24 * 60 * 60;
/** The registered claims a token may carry besides the order's own (the order's are checked by the v2 purchase rules). */
export const REGISTERED_CLAIMS = ['exp', 'iat', 'nbf', 'iss', 'sub', 'aud', 'jti'] as const;

export const NOT_VERIFIED = "purchase_token does not verify with the merchant's secret key";

const unauthorized = (message: string) => new UnauthorizedError([message]);
const badClaim = (claim: string, message: string) => new BadRequestError([{ property: `purchase_token.${claim}`, code: 'invalid', message }]);

/**
 * The token's claims when `secretKey` signed it with HS256 and it has not expired at `now`;
 * otherwise 401 (a signature that does not verify, another algorithm, `none`; expired) or 400
 * (not a JWT, no `exp` or one more than a day ahead, a payload that is not a claims object).
 */
export async function verifyPurchaseToken(token: string, secretKey: string, now: Date): Promise<Record<string, unknown>> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secretKey), { algorithms: ['HS256'], requiredClaims: ['exp'], currentDate: now }));
  } catch (error) {
    if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JWSSignatureVerificationFailed) throw unauthorized(NOT_VERIFIED);
    if (error instanceof errors.JWTExpired) throw unauthorized('purchase_token expired: the server makes a new one for the order');
    if (error instanceof errors.JWTClaimValidationFailed)
      throw badClaim(
        error.claim,
        `purchase_token: ${error.reason === 'missing' ? `the ${error.claim} claim is required` : `the ${error.claim} claim is not valid (${error.reason})`}`,
      );
    if (error instanceof errors.JOSEError)
      throw new BadRequestError([
        {
          property: 'purchase_token',
          code: 'invalid',
          message: "purchase_token must be a JWT (HS256, signed with the merchant's secret key: docs/embedding.md)",
        },
      ]);
    throw error;
  }
  const exp = payload.exp as number;
  if (exp > now.getTime() / 1000 + MAX_PURCHASE_TOKEN_SECONDS) {
    throw badClaim('exp', `purchase_token: the exp claim must be at most ${MAX_PURCHASE_TOKEN_SECONDS / 3600} hours from now`);
  }
  return payload;
}

/** The order's own claims: the registered ones (checked above) set aside. */
export function orderClaims(payload: Record<string, unknown>): Record<string, unknown> {
  const order = { ...payload };
  for (const claim of REGISTERED_CLAIMS) delete order[claim];
  return order;
}
