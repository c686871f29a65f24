/**
 * The query string of the audit lists, checked by hand rather than by a DTO because `type` may
 * be repeated (`type=A&type=B`) or comma-separated, which the global validation pipe refuses
 * for DTO queries. Same rules as every v2 list otherwise: unknown or repeated parameters are 400.
 */
import type { FastifyRequest } from 'fastify';
import { BadRequestError, type ErrorElement, unrecognizedParameter } from '../platform/errors.js';
import { parseV2Paging, V2Paging } from '../platform/http/paging.js';
import { ENTITY_KINDS, parseEntity } from './entities.js';

export const MAX_TYPES = 20;
export const TYPE = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;
const PAGING = ['cursor', 'limit', 'from', 'to'] as const;

export interface AuditQuery {
  paging: V2Paging;
  entity?: string;
  stream?: string;
  types?: string[];
}

export function parseAuditQuery(raw: Record<string, unknown>, options: { entityFilter: boolean; request: FastifyRequest }): AuditQuery {
  const allowed = new Set<string>([...PAGING, 'stream', 'type', ...(options.entityFilter ? ['entity'] : [])]);
  const errors: ErrorElement[] = [];
  const single: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (!allowed.has(name)) {
      errors.push(unrecognizedParameter(name, [...allowed]));
    } else if (name !== 'type') {
      if (typeof value !== 'string') errors.push(`query parameter ${name} must be given once`);
      else single[name] = value;
    }
  }
  if (errors.length) throw new BadRequestError(errors);
  const paging = parseV2Paging({ cursor: single.cursor, limit: single.limit, from: single.from, to: single.to }, options.request);

  let types: string[] | undefined;
  if (raw.type !== undefined) {
    const given = (Array.isArray(raw.type) ? raw.type : [raw.type]).flatMap((v) => String(v).split(','));
    types = [...new Set(given.map((t) => t.trim()))];
    if (types.some((t) => !TYPE.test(t))) errors.push('type must be event type names (letters, digits, _ . -), repeated or comma-separated');
    if (types.length > MAX_TYPES) errors.push(`at most ${MAX_TYPES} event types at once`);
  }
  const stream = single.stream;
  if (stream !== undefined && (stream.length === 0 || stream.length > 500)) errors.push('stream must be 1 to 500 characters');
  let entity: string | undefined;
  if (single.entity !== undefined) {
    entity = parseEntity(single.entity);
    if (!entity) errors.push(`entity must be <kind>:<id> with kind one of ${[...ENTITY_KINDS].join(', ')}`);
  }
  if (errors.length) throw new BadRequestError(errors);
  return { paging, entity, stream, types };
}
