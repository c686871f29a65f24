/**
 * Absolute URLs the API hands out (API links, detail_uri, next_page): PUBLIC_BASE_URL when
 * set, else the scheme and host the request came in on. A sandbox request keeps its prefix.
 */
import { NotFoundError } from '../errors.js';
import type { FastifyRequest } from 'fastify';

export function requestOrigin(request: FastifyRequest, configured: string | undefined): string {
  return configured ?? answeredAs.get(request) ?? `${request.protocol}://${request.host}`;
}

/** Requests answered on another's behalf (a point-in-time read's inner request), and that request's origin. */
const answeredAs = new WeakMap<FastifyRequest, string>();

/** Links in `request`'s answer are built from `origin` (the outer request's), not from how it reached the server. */
export function answerAs(request: FastifyRequest, origin: string): void {
  answeredAs.set(request, origin);
}

/** The origin plus the mount point of the API the request used ('' or '/sandbox'). */
export function apiBase(request: FastifyRequest, configured: string | undefined): string {
  const mount = request.url.startsWith('/sandbox/') ? '/sandbox' : '';
  return `${requestOrigin(request, configured)}${mount}`;
}

/** A path id: a positive integer, or the resource does not exist (404, not 400). */
export function parseId(raw: string, what: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new NotFoundError([`${what} ${raw.slice(0, 64)} not found`]);
  }
  return Number(raw);
}

/** The path segments of a link, each percent-encoded (ids, the common case, need no encoding). */
function segments(path: readonly (string | number)[]): string {
  let out = '';
  for (let i = 0; i < path.length; i += 1) {
    const p = path[i];
    out += (i === 0 ? '' : '/') + (typeof p === 'number' ? String(p) : encodeURIComponent(p));
  }
  return out;
}

/** Builds the API's absolute links for one request (a page of 20 documents asks for dozens). */
export class Links {
  /** The request's base, worked out once (from its host and scheme, unless configured). */
  private baseUrl: string | undefined;

  constructor(
    private readonly request: FastifyRequest,
    private readonly configured: string | undefined,
    /** PUBLIC_LINK_BASE: where trackable links point (default: this service's /l). */
    private readonly linkBase?: string,
  ) {}

  /** The trackable link of a referral code: one domain plus the code (spec §2.2). */
  trackable(code: string): string {
    return `${this.linkBase ?? `${this.base}/l`}/${code}`;
  }

  get base(): string {
    return (this.baseUrl ??= apiBase(this.request, this.configured));
  }

  v1(...path: (string | number)[]): string {
    return `${this.base}/v1/${segments(path)}`;
  }

  v2(...path: (string | number)[]): string {
    return `${this.base}/v2/${segments(path)}`;
  }
}
