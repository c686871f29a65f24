/**
 * Every error leaves the service as `{"errors": [...]}` (spec §7), whatever raised it: the
 * application's own errors, Nest's HTTP exceptions, or Fastify's (body parsing, size, media
 * type). Anything unexpected becomes a 500 whose details go to the log, never to the client.
 */
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorElement, ErrorKind } from '../errors.js';

export interface ErrorResponse {
  status: number;
  errors: ErrorElement[];
  headers?: Record<string, string>;
}

const logger = new Logger('Errors');

/** The one place an application error's kind becomes an HTTP status. */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  too_many: 429,
  unavailable: 503,
};

export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof AppError) return { status: STATUS_OF_KIND[error.kind], errors: error.errors, headers: error.advice };
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const body = error.getResponse();
    const message = typeof body === 'string' ? body : ((body as { message?: unknown }).message ?? error.message);
    const errors = (Array.isArray(message) ? message : [message]).map((m) => String(m));
    return { status, errors };
  }
  const e = error as { statusCode?: number; code?: string; message?: string };
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    // Fastify's messages may echo the request (a URL, a parameter): keep them short.
    return { status: e.statusCode, errors: [(e.message ?? 'bad request').slice(0, 300)] };
  }
  logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return { status: 500, errors: ['internal error'] };
}

export function sendError(reply: FastifyReply, response: ErrorResponse): void {
  if (reply.sent) return;
  reply.code(response.status).header('content-type', 'application/json; charset=utf-8');
  for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
  reply.send({ errors: response.errors });
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    sendError(reply, toErrorResponse(exception));
  }
}

export type { FastifyRequest };
