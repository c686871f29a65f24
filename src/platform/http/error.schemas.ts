/**
 * The error body every error answers with (spec §7; docs/api-decisions.md, "Errors"), as
 * exception.filter.ts sends it, and the decorator that documents it on a route's statuses.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
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
};

/**
 * Documents the error body on each of these statuses; a status may carry the route's own
 * description of when it is answered (`[409, 'order_id is already used']`).
 */
export function ApiErrorResponses(...statuses: (number | [number, string])[]) {
  return applyDecorators(
    ...statuses.map((entry) => {
      const [status, description] = typeof entry === 'number' ? [entry, DESCRIPTIONS[entry]] : entry;
      if (!description) throw new Error(`no description for error status ${status}`);
      return ApiResponse({ status, description, schema: ERROR_BODY });
    }),
  );
}

/** The admin API's 401: its own token, not a merchant's credentials. */
export const ADMIN_UNAUTHORIZED: [number, string] = [401, 'Missing or wrong admin token'];

/**
 * The admin API's 404: what the route looks up from its path or body (`Unknown merchant or
 * widget`), and on every admin route the admin API being off.
 */
export function adminNotFound(what?: string): [number, string] {
  const off = 'the admin API is off (ADMIN_TOKEN unset)';
  return [404, what ? `${what}, or ${off}` : `Only when ${off}`];
}
