/**
 * Which entities an event is about, as `kind:id` (customer:123, widget:45, referral_link:AB12CD):
 * every id field of its data, at any depth (ConversionAttributed.source.shareId), and the id in
 * the name of streams that are named after one aggregate and carry no id field for it. A feature
 * that adds an entity kind adds its id field here.
 */
import { createHash } from 'node:crypto';
import type { RecordedEvent } from '../platform/event-store/event-store.js';

/** Data fields holding the id of an entity, and the entity's kind. */
export const ENTITY_FIELDS: Readonly<Record<string, string>> = {
  customerId: 'customer',
  advocateCustomerId: 'customer',
  friendCustomerId: 'customer',
  widgetId: 'widget',
  purchaseId: 'purchase',
  shareId: 'share',
  reminderEmailId: 'reminder_email',
  emailCaptureId: 'email_capture',
  conversionId: 'conversion',
  rewardId: 'reward',
  referralCode: 'referral_link',
  couponCode: 'coupon',
  couponBankId: 'coupon_bank',
  bankId: 'coupon_bank',
  endpointId: 'webhook_endpoint',
};

/** Streams named `<prefix><id>` whose events are all about that one entity. */
export const STREAM_ENTITIES: readonly { prefix: string; kind: string; numeric: boolean }[] = [
  { prefix: 'merchant-', kind: 'merchant', numeric: true },
  { prefix: 'widget-', kind: 'widget', numeric: true },
  { prefix: 'referral-code-', kind: 'referral_link', numeric: false },
  { prefix: 'coupon-bank-', kind: 'coupon_bank', numeric: true },
  { prefix: 'webhook-endpoint-', kind: 'webhook_endpoint', numeric: true },
];

/** Data fields that hold an entity id only in events of one type (`code` is too generic a name to hold one everywhere). */
export const TYPE_ENTITY_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // The claim of an advocate's personal link for a widget: the code it was given.
  PersonalLinkClaimed: { code: 'referral_link' },
};

/** Streams whose name holds an entity's id among other things: the personal-link claim of a customer. */
export const STREAM_PATTERNS: readonly { pattern: RegExp; kind: string }[] = [
  { pattern: /^personal-link-[0-9]+-[0-9]+-c([1-9][0-9]{0,15})$/, kind: 'customer' },
];

export const ENTITY_KINDS: ReadonlySet<string> = new Set([...Object.values(ENTITY_FIELDS), ...STREAM_ENTITIES.map((s) => s.kind)]);

export const ID_TEXT = /^[A-Za-z0-9._~@+-]{1,200}$/;
const MAX_DEPTH = 4;

/**
 * Bump when the code below changes which entities or merchant an event is indexed under
 * (the tables above are hashed in already).
 */
const RULES_REVISION = 2;

/**
 * Identifies these rules: the embedded audit index (sqlite-audit-index.ts) stores it and is
 * rebuilt from the log at the next start when it differs, so an entity kind added here also
 * indexes the events stored before it.
 */
export const ENTITY_RULES_VERSION = createHash('sha256')
  .update(
    JSON.stringify([
      RULES_REVISION,
      ENTITY_FIELDS,
      TYPE_ENTITY_FIELDS,
      STREAM_ENTITIES,
      STREAM_PATTERNS.map((p) => [p.pattern.source, p.kind]),
      ID_TEXT.source,
      MAX_DEPTH,
    ]),
  )
  .digest('hex')
  .slice(0, 16);

function idText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? String(value) : undefined;
  if (typeof value === 'string' && ID_TEXT.test(value)) return value;
  return undefined;
}

function collect(value: unknown, depth: number, out: Set<string>): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [key, item] of Object.entries(value)) {
    const kind = ENTITY_FIELDS[key];
    const id = kind ? idText(item) : undefined;
    if (kind && id !== undefined) out.add(`${kind}:${id}`);
    else collect(item, depth + 1, out);
  }
}

/** The entities an event is about, each once, in a stable order. */
export function entitiesOf(event: Pick<RecordedEvent, 'data' | 'streamName' | 'type'>): string[] {
  const out = new Set<string>();
  for (const { prefix, kind, numeric } of STREAM_ENTITIES) {
    if (!event.streamName.startsWith(prefix)) continue;
    const id = event.streamName.slice(prefix.length);
    if (numeric ? /^[1-9][0-9]{0,15}$/.test(id) : idText(id) !== undefined) out.add(`${kind}:${id}`);
  }
  for (const { pattern, kind } of STREAM_PATTERNS) {
    const id = pattern.exec(event.streamName)?.[1];
    if (id !== undefined) out.add(`${kind}:${id}`);
  }
  const typed = TYPE_ENTITY_FIELDS[event.type];
  if (typed !== undefined && event.data !== null && typeof event.data === 'object') {
    for (const [field, kind] of Object.entries(typed)) {
      const id = idText((event.data as Record<string, unknown>)[field]);
      if (id !== undefined) out.add(`${kind}:${id}`);
    }
  }
  collect(event.data, 0, out);
  return [...out];
}

/** Parses `kind:id` from a query or path; undefined when it names no known kind or no valid id. */
export function parseEntity(text: string): string | undefined {
  const colon = text.indexOf(':');
  if (colon < 1) return undefined;
  const kind = text.slice(0, colon);
  const id = text.slice(colon + 1);
  if (!ENTITY_KINDS.has(kind) || !ID_TEXT.test(id)) return undefined;
  // Numeric ids are stored without leading zeros.
  return /^[0-9]+$/.test(id) ? `${kind}:${BigInt(id).toString()}` : `${kind}:${id}`;
}

/** The merchant an event belongs to: metadata and data must agree when both name one. */
export function merchantOf(event: Pick<RecordedEvent, 'data' | 'metadata'>): number | undefined {
  const valid = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined);
  const fromMetadata = valid(event.metadata?.merchantId);
  const fromData = valid((event.data as { merchantId?: unknown } | null)?.merchantId);
  if (fromMetadata !== undefined && fromData !== undefined && fromMetadata !== fromData) return undefined;
  return fromMetadata ?? fromData;
}
