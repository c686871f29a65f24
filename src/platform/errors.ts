/**
 * Errors the domain and the application layer raise. They carry no HTTP: each says what kind of
 * refusal it is, and the exception filter in platform/http maps the kind to a status and the
 * `{"errors": [...]}` body (spec §7).
 */

/** One element of an error body: a plain sentence or a structured report about a property. */
export type ErrorElement = string | { property: string; code: string; message: string };

/** What kind of refusal an error is, as the caller should understand it. */
export type ErrorKind = 'invalid' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'too_large' | 'too_many' | 'unavailable';

/** What a caller needs to act on a refusal, named as the standard names these facts (the edge sends each as that header). */
export type ErrorAdvice = {
  /** Whole seconds to wait before trying again. */
  readonly 'retry-after'?: string;
  /** The credentials to present: a scheme and its realm. */
  readonly 'www-authenticate'?: string;
};

/** Advice to try again after `seconds` (whole seconds, at least one). */
export function retryAfter(seconds: number): ErrorAdvice {
  return { 'retry-after': String(seconds) };
}

export abstract class AppError extends Error {
  abstract readonly kind: ErrorKind;
  constructor(
    readonly errors: ErrorElement[],
    readonly advice?: ErrorAdvice,
  ) {
    super(errors.map((e) => (typeof e === 'string' ? e : e.message)).join('; '));
  }
}

/** The input breaks a rule (a property's format, a combination, a reference to nothing usable). */
export class BadRequestError extends AppError {
  readonly kind = 'invalid';
}

/** No credentials, or ones that do not open this. */
export class UnauthorizedError extends AppError {
  readonly kind = 'unauthorized';
}

/** The caller is known, and may not do this. */
export class ForbiddenError extends AppError {
  readonly kind = 'forbidden';
}

export class NotFoundError extends AppError {
  readonly kind = 'not_found';
}

/** The change contradicts what is recorded (a duplicate, a state that does not allow it). */
export class ConflictError extends AppError {
  readonly kind = 'conflict';
}

/** The change is larger than can be kept in one write. */
export class PayloadTooLargeError extends AppError {
  readonly kind = 'too_large';
}

/** A limit on how much or how often is reached; `advice` says when to try again. */
export class TooManyRequestsError extends AppError {
  readonly kind = 'too_many';
}

/** Spec §7: "API temporarily offline". */
export class ServiceUnavailableError extends AppError {
  readonly kind = 'unavailable';
}

/**
 * What a storage adapter throws when its server cannot be reached (a network error, no server
 * to select, no leader): unavailable with a time to retry, so a client retries later, rather than an internal error.
 * The driver's error is the cause; its text (hosts, addresses) does not reach the client.
 */
export function storageUnavailable(what: 'event store' | 'read store', cause: unknown): ServiceUnavailableError {
  const error = new ServiceUnavailableError([`the ${what} cannot be reached; retry shortly`], retryAfter(5));
  (error as Error & { cause?: unknown }).cause = cause;
  return error;
}

/**
 * The document a write just made, or, when the read models did not reach it within the
 * read-your-writes wait (a server far behind), unavailable: the change is recorded, and a read of
 * `where` shortly shows it (a repeat of the write would make a second one).
 */
export function written<T>(doc: T | null | undefined, what: string, where: string): T {
  if (doc !== null && doc !== undefined) return doc;
  throw new ServiceUnavailableError(
    [`the ${what} was recorded, but the read models are behind: read it with ${where} shortly, and do not send the request again`],
    retryAfter(5),
  );
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
