import { BadRequestException } from '@nestjs/common';
import {
  AppError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  retryAfter,
  ServiceUnavailableError,
  storageUnavailable,
  TooManyRequestsError,
  UnauthorizedError,
} from '../errors.js';
import { STATUS_OF_KIND, toErrorResponse } from './exception.filter.js';

describe('toErrorResponse', () => {
  it('gives each kind of application error its status here, at the edge: the errors carry none', () => {
    const raised: AppError[] = [
      new BadRequestError(['bad']),
      new UnauthorizedError(['who?'], { 'www-authenticate': 'Bearer realm="admin"' }),
      new ForbiddenError(['no']),
      new NotFoundError(['none']),
      new ConflictError(['taken']),
      new PayloadTooLargeError(['big']),
      new TooManyRequestsError(['slow down'], retryAfter(30)),
      new ServiceUnavailableError(['later']),
    ];
    expect(raised.map((error) => [error.kind, toErrorResponse(error).status])).toEqual([
      ['invalid', 400],
      ['unauthorized', 401],
      ['forbidden', 403],
      ['not_found', 404],
      ['conflict', 409],
      ['too_large', 413],
      ['too_many', 429],
      ['unavailable', 503],
    ]);
    expect(raised.some((error) => 'status' in error || 'statusCode' in error)).toBe(false);
    expect(Object.keys(STATUS_OF_KIND)).toHaveLength(raised.length);
  });

  it('sends the advice as the headers of the same names, and the errors as the body', () => {
    expect(toErrorResponse(new TooManyRequestsError(['slow down'], retryAfter(30)))).toEqual({
      status: 429,
      errors: ['slow down'],
      headers: { 'retry-after': '30' },
    });
    expect(toErrorResponse(new UnauthorizedError(['who?'], { 'www-authenticate': 'Bearer realm="admin"' }))).toEqual({
      status: 401,
      errors: ['who?'],
      headers: { 'www-authenticate': 'Bearer realm="admin"' },
    });
    expect(toErrorResponse(storageUnavailable('read store', new Error('connect ECONNREFUSED 10.0.0.1:27017')))).toEqual({
      status: 503,
      errors: ['the read store cannot be reached; retry shortly'],
      headers: { 'retry-after': '5' },
    });
    expect(toErrorResponse(new NotFoundError([{ property: 'id', code: 'not_found', message: 'no such thing' }]))).toEqual({
      status: 404,
      errors: [{ property: 'id', code: 'not_found', message: 'no such thing' }],
      headers: undefined,
    });
  });

  it("keeps Nest's and Fastify's own statuses, and hides anything else behind a 500", () => {
    expect(toErrorResponse(new BadRequestException('nope'))).toEqual({ status: 400, errors: ['nope'] });
    const fastify = Object.assign(new Error('Unsupported Media Type'), { statusCode: 415 });
    expect(toErrorResponse(fastify)).toEqual({ status: 415, errors: ['Unsupported Media Type'] });
    expect(toErrorResponse(new Error('a detail for the log only'))).toEqual({ status: 500, errors: ['internal error'] });
  });
});
