/**
 * The error body every error answers with (spec §7; docs/api-decisions.md, "Errors"), as
 * exception.filter.ts sends it, and the decorator that documents it on a route's statuses.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiResponse, type OpenAPIObject } from '@nestjs/swagger';
import { object, oneOfStrings, str, type SchemaObject } from './response-schemas.js';

/** The codes of a structured report (src/platform/http/validation.ts and the routes' own checks). */
export const ERROR_CODES = ['missing', 'unrecognized_property', 'wrong_type', 'invalid'] as const;

export const ERROR_REPORT: SchemaObject = object(
  {
    property: str('Dotted path of the property (`reward_criteria.minimum_purchase_amount`)'),
    code: oneOfStrings(ERROR_CODES),
    message: str(),
  },
  { description: 'A fault of one property of the body (or a query parameter the route does not take)' },
);

export const ERROR_BODY: SchemaObject = object(
  {
    errors: {
      type: 'array',
      minItems: 1,
      items: { oneOf: [str('A plain sentence (paging, dates, ids, credentials, conflicts, …)'), ERROR_REPORT] },
    },
  },
  { description: 'Each element is a plain string or a structured report' },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: malformed JSON, a query string the route does not take, or invalid query or body values',
  401: 'Missing or bad credentials',
  403: "A customer token on a route it may not call, or on another customer's data",
  404: "Not found: an unknown id (in the path or the body), or another merchant's",
  409: 'Conflict',
  429: 'Too many requests: too many failed authentication attempts from this address for these credentials, or a limit of the route; wait Retry-After seconds',
};

/** A 429's Retry-After header (spec §7 rate limits; the credential throttle, docs/security.md). */
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before the next attempt', schema: { type: 'integer', minimum: 1 } } };

/**
 * Documents the error body on each of these statuses; a status may carry the route's own
 * description of when it is answered (`[409, 'order_id is already used']`).
 */
export function ApiErrorResponses(...statuses: (number | [number | 'default', string])[]) {
  return applyDecorators(
    ...statuses.map((entry) => {
      const [status, description] = typeof entry === 'number' ? [entry, DESCRIPTIONS[entry]] : entry;
      if (!description) throw new Error(`no description for error status ${status}`);
      return ApiResponse({ status, description, schema: ERROR_BODY, ...(status === 429 ? { headers: RETRY_AFTER } : {}) });
    }),
  );
}

/**
 * Documents the 429 on every operation that takes credentials (a `security` requirement): each
 * of them answers it once its credentials failed too often (AuthFailureLimiter).
 */
export function documentThrottling(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const) {
      const operation = path[method];
      if (!operation?.security?.length || operation.responses['429']) continue;
      operation.responses['429'] = { description: DESCRIPTIONS[429], headers: RETRY_AFTER, content: { 'application/json': { schema: ERROR_BODY } } };
    }
  }
  return document;
}

/**
 * Documents the 406 on every operation under `prefixes` (http-setup.ts's API routes): each answers
 * it, before anything else is read, to a request whose Accept excludes application/json.
 */
export function documentNotAcceptable(document: OpenAPIObject, prefixes: readonly string[]): OpenAPIObject {
  for (const [name, path] of Object.entries(document.paths)) {
    if (!prefixes.some((prefix) => name.startsWith(prefix))) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = path[method];
      if (operation && !operation.responses['406']) {
        operation.responses['406'] = { description: 'The Accept header excludes application/json', content: { 'application/json': { schema: ERROR_BODY } } };
      }
    }
  }
  return document;
}

/** Every route's 400 when the Host header is missing or malformed (http-setup.ts): the probes' only client error. */
export const BAD_HOST: [number, string] = [400, 'The Host header is missing or malformed'];

/** The admin API's 401: its own token, not a merchant's credentials. */
export const ADMIN_UNAUTHORIZED: [number, string] = [401, 'Missing or wrong admin token'];
/** A write recorded whose read models did not show it within the read-your-writes wait (errors.ts, `written`). */
export const READ_MODELS_BEHIND: [number, string] = [
  503,
  'The change was recorded, but the read models are behind: read it shortly (Retry-After); do not send the request again',
];

/**
 * The admin API's 404: what the route looks up from its path or body (`Unknown merchant or
 * widget`), and on every admin route the admin API being off.
 */
export function adminNotFound(what?: string): [number, string] {
  const off = 'the admin API is off (ADMIN_TOKEN unset)';
  return [404, what ? `${what}, or ${off}` : `Only when ${off}`];
}
