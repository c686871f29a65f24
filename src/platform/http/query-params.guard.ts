/**
 * A query string on an API route that takes none (writes, single resources) is refused with 400,
 * as unknown parameters are on the lists: `POST /v2/purchases?dry_run=true` recorded a real
 * purchase, and a typo or a wish would otherwise pass silently. Routes outside the API (/l
 * trackable links, which marketing tools append utm_* parameters to; /health, /metrics, /docs)
 * are left alone. A route takes a query when its handler has a @Query() parameter.
 *
 * A guard rather than an interceptor: with no interceptor at all Nest answers a request without
 * its Observable pipeline, which is a measurable part of a lookup's cost (docs/benchmarks.md).
 */
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { FastifyRequest } from 'fastify';
import { BadRequestError, unrecognizedParameter } from '../errors.js';

const API_PATH = /^\/(?:sandbox\/)?(?:v1|v2|admin)\//;

@Injectable()
export class QueryParamsGuard implements CanActivate {
  private readonly takesQuery = new WeakMap<object, boolean>();

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const query = request.query as Record<string, unknown> | undefined;
    if (query && Object.keys(query).length > 0 && API_PATH.test(request.url) && !this.acceptsQuery(context)) {
      throw new BadRequestError(Object.keys(query).map((name) => unrecognizedParameter(name, [])));
    }
    return true;
  }

  private acceptsQuery(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let known = this.takesQuery.get(handler);
    if (known === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      known = Object.keys(args).some((key) => Number(key.split(':')[0]) === RouteParamtypes.QUERY);
      this.takesQuery.set(handler, known);
    }
    return known;
  }
}
