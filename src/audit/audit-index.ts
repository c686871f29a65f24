/**
 * The audit index port: what the audit trail (GET /v2/audit/events, /v2/audit/entities/{entity})
 * asks of the index of the log per merchant and entity. Two adapters, chosen in one place
 * (audit-storage.ts):
 *
 * - embedded (SQLite event store): rows in a SQLite file beside the log, written after each
 *   commit by a thread of their own (sqlite-audit-index.ts), so the index is never replayed;
 * - server (EventStoreDB): the `audit_index` read model, a projection into the read store
 *   (MongoDB, or memory), read by read-model-audit-index.ts.
 *
 * Both answer the same entries in the same order with the same `_id`s, so cursors, ordering and
 * paging (`v2Page` in platform/http/paging.ts) are the same whichever is behind the port; one
 * contract suite holds both to it (test/contract/audit-index.contract.ts).
 */
import { V2Paging } from '../platform/http/paging.js';
import { positionKey, ReadDoc } from '../platform/read-store/read-store.js';

/** The `entity` of the entries that list every event of a merchant. */
export const EVERY_EVENT = '*';

/** One event as indexed under one entity (or under `*`). */
export interface AuditEntryDoc extends ReadDoc {
  merchant_id: number;
  /** `*`, or the entity (`customer:123`) this entry indexes the event under. */
  entity: string;
  event_id: string;
  type: string;
  stream: string;
  revision: number;
  /** Global position, as a decimal string (positions can exceed 2^53). */
  position: string;
}

/** An entry with its event's data, as stored (unredacted: the presenter redacts). */
export interface AuditEntry extends AuditEntryDoc {
  data: unknown;
}

export interface AuditFilter {
  merchantId: number;
  /** An entity (`customer:123`), or undefined for every event of the merchant. */
  entity?: string;
  stream?: string;
  /** Any of these event types; undefined or empty = every type. */
  types?: string[];
}

export interface AuditIndex {
  /**
   * One page plus one entry (`paging.limit + 1`, to tell whether more follow), in (created_at,
   * `_id`) order, strictly after `paging.after`, within `paging.createdFrom`/`createdBefore`.
   * Always scoped to `filter.merchantId` first.
   */
  page(filter: AuditFilter, paging: V2Paging): Promise<AuditEntry[]>;
  /** Whether the merchant has any event about the entity. */
  exists(merchantId: number, entity: string): Promise<boolean>;
}

export const AUDIT_INDEX = Symbol('AuditIndex');

/**
 * The `_id` of an entry: `_id`s sort like positions within one entity, so entries of the same
 * millisecond keep log order (the cursor's tie-break).
 */
export function entryId(entity: string, position: bigint): string {
  return `${entity === EVERY_EVENT ? '' : `${entity}@`}${positionKey(position)}`;
}

export function entityOfEntryId(id: string): string {
  const at = id.lastIndexOf('@');
  return at < 0 ? EVERY_EVENT : id.slice(0, at);
}

const WIDTH = 40;
const DIGIT = /^[0-9]$/;

/**
 * For a cursor's `_id` within `entity`: the position p such that an entry of that entity at
 * position q sorts after the cursor exactly when q > p. A cursor the service issued gives its
 * own position; any other string gives the bound that plain string comparison of `_id`s would
 * (-1: every position; 10^40: none), so a position-keyed adapter pages exactly like one that
 * compares `_id`s.
 */
export function positionAfterEntryId(entity: string, id: string): bigint {
  const NONE = 10n ** BigInt(WIDTH);
  const prefix = entity === EVERY_EVENT ? '' : `${entity}@`;
  if (!id.startsWith(prefix)) return id < prefix ? -1n : NONE;
  const rest = id.slice(prefix.length);
  let digits = 0;
  while (digits < WIDTH && digits < rest.length && DIGIT.test(rest[digits])) digits += 1;
  if (digits === WIDTH) return BigInt(rest.slice(0, WIDTH));
  // The smallest 40-digit key above `rest`, minus one.
  const head = rest.slice(0, digits);
  const pad = (text: string) => BigInt(text.padEnd(WIDTH, '0'));
  if (digits === rest.length || rest[digits] < '0') return pad(head) - 1n;
  if (/^9*$/.test(head)) return NONE;
  return pad((BigInt(head) + 1n).toString().padStart(digits, '0')) - 1n;
}
