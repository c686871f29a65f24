/**
 * Every request gets an id: the caller's `X-Request-Id` when it is a sane token (so a trace can
 * cross services), else a fresh UUID. It is Fastify's `request.id`, echoed in the response's
 * `X-Request-Id` header and written on the request's access-log line.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** 1 to 128 characters of letters, digits and `-_.:/+=`: no spaces, quotes or control characters. */
const SANE = /^[A-Za-z0-9._:/+=-]{1,128}$/;

export function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE.test(value);
}

/** Fastify's `genReqId`: runs before any hook, so even a 404 or 405 carries the id. */
export function requestIdFor(request: Pick<IncomingMessage, 'headers'>): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return isSaneRequestId(given) ? given : randomUUID();
}
