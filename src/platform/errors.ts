/**
 * Errors the domain and the application layer raise. They carry no HTTP; the exception filter
 * in platform/http maps each to its status and the `{"errors": [...]}` body (spec §7).
 */

/** One element of an error body: a plain sentence or a structured report about a property. */
export type ErrorElement = string | { property: string; code: string; message: string };

export abstract class AppError extends Error {
  abstract readonly status: number;
  constructor(
    readonly errors: ErrorElement[],
    /** Extra response headers (WWW-Authenticate, Retry-After, Allow). */
    readonly headers?: Record<string, string>,
  ) {
    super(errors.map((e) => (typeof e === 'string' ? e : e.message)).join('; '));
  }
}

export class BadRequestError extends AppError {
  readonly status = 400;
}

export class UnauthorizedError extends AppError {
  readonly status = 401;
}

export class ForbiddenError extends AppError {
  readonly status = 403;
}

export class NotFoundError extends AppError {
  readonly status = 404;
}

export class ConflictError extends AppError {
  readonly status = 409;
}

export class PayloadTooLargeError extends AppError {
  readonly status = 413;
}

export class TooManyRequestsError extends AppError {
  readonly status = 429;
}

/** Spec §7: "API temporarily offline". */
export class ServiceUnavailableError extends AppError {
  readonly status = 503;
}

/**
 * What a storage adapter throws when its server cannot be reached (a network error, no server
 * to select, no leader): a 503 with Retry-After, so a client retries later, rather than a 500.
 * The driver's error is the cause; its text (hosts, addresses) does not reach the client.
 */
export function storageUnavailable(what: 'event store' | 'read store', cause: unknown): ServiceUnavailableError {
  const error = new ServiceUnavailableError([`the ${what} cannot be reached; retry shortly`], { 'retry-after': '5' });
  (error as Error & { cause?: unknown }).cause = cause;
  return error;
}

export function invalid(property: string, code: string, message: string): BadRequestError {
  return new BadRequestError([{ property, code, message }]);
}

/** The report of a property no rule declares (`more`: the end of the message, e.g. what is allowed). */
export function unrecognizedProperty(property: string, more = ''): ErrorElement {
  return { property, code: 'unrecognized_property', message: `property ${property} should not exist${more}` };
}

/** The report of a query parameter a route does not take (`allowed`: the ones it does, for the message). */
export function unrecognizedParameter(name: string, allowed?: readonly string[]): ErrorElement {
  const also = allowed === undefined ? '' : allowed.length === 0 ? ': this route takes no query parameters' : `; allowed: ${allowed.join(', ')}`;
  return unrecognizedProperty(name.slice(0, 64), also);
}
