/**
 * Erasing data subjects from read models already built. Destroying their keys makes every later
 * read of the log give null for their values, so a rebuilt model is clean; the models built before
 * (in memory, or in MongoDB) still hold the plaintext. Each collection declares where it keeps
 * personal values (`CollectionDef.personal`); `planErasure` finds, for one merchant, the documents
 * and paths that hold an erased subject's, and a `PersonalDataErased` event carrying that plan is
 * applied by `erasureProjections`, one per declared collection, which set those paths to null.
 *
 * The plan travels in the event (rather than each projection matching addresses itself) because
 * projections are pure and the addresses themselves must not be written to the log in clear.
 */
import type { DomainEvent } from '../event-store/event-store.js';
import type { Projection } from '../projections/projection.js';
import { type CollectionDef, everyDoc, type ReadDoc, type ReadStore } from '../read-store/read-store.js';
import { normaliseAddress, type PersonalDocFields } from './personal-fields.js';

export type { PersonalDocFields };

/** Per collection name, per document `_id`: the dot paths to set to null (a list item as `email_recipients.2`). */
export type ScrubPlan = Record<string, Record<string, string[]>>;

/** Read models drop an erasure job's subjects: `scrub` lists what to null. */
export type PersonalDataErased = DomainEvent<'PersonalDataErased', { jobId: number; merchantId: number; scrub: ScrubPlan; erasedAt: string }>;

export const PERSONAL_DATA_ERASED = 'PersonalDataErased';

/** Keys of free-form JSON whose strings are a person's: addresses, names, network identity, what they wrote or were sent. */
const PERSONAL_KEY =
  /^(e?mail|.*_email|email_address(es)?|.*_email_address(es)?|email_recipients|recipients|(first|last|full|display|customer|advocate|friend)_name|ip|ip_address|user_agent|message|to|subject|text|body|phone)$/i;

/** `name` is a person's only beside an address (a customer object), not a product's or a coupon's. */
const NAME_KEY = /^name$/i;
const ADDRESS_KEY = /^(e?mail|.*_email|email_address)$/i;

type Container = Record<string, unknown> | unknown[];

function valueAt(doc: unknown, path: string): unknown {
  let at: unknown = doc;
  for (const step of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/** A copy of `doc` with each path set to null; containers on the way are copied, the rest shared. A path whose parent is gone is left. */
export function withNulls<D extends ReadDoc>(doc: D, paths: readonly string[]): D {
  const out = { ...doc } as Record<string, unknown>;
  const copied = new Set<unknown>([out]);
  for (const path of paths) {
    const steps = path.split('.');
    let at: Container = out;
    let reachable = true;
    for (let i = 0; i < steps.length - 1; i += 1) {
      const child = (at as Record<string, unknown>)[steps[i]];
      if (child === null || typeof child !== 'object') {
        reachable = false;
        break;
      }
      const own = copied.has(child) ? child : Array.isArray(child) ? [...(child as unknown[])] : { ...(child as Record<string, unknown>) };
      copied.add(own);
      (at as Record<string, unknown>)[steps[i]] = own;
      at = own as Container;
    }
    const last = steps[steps.length - 1];
    if (reachable && (at as Record<string, unknown>)[last] !== undefined) (at as Record<string, unknown>)[last] = null;
  }
  return out as D;
}

const isSet = (value: unknown) => value !== null && value !== undefined;

/** Whether some string inside `value` is one of `addresses` (normalised). */
function mentions(value: unknown, addresses: ReadonlySet<string>): boolean {
  if (typeof value === 'string') return addresses.has(normaliseAddress(value));
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some((v) => mentions(v, addresses));
}

/** The paths of the strings inside `value` (at `path`) under a personal-looking key. */
function personalStrings(value: unknown, path: string, under: boolean, out: string[]): void {
  if (typeof value === 'string') {
    if (under) out.push(path);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => personalStrings(item, `${path}.${i}`, under, out));
    return;
  }
  const keys = Object.keys(value);
  const withAddress = keys.some((k) => ADDRESS_KEY.test(k));
  for (const key of keys) {
    const personal = under || PERSONAL_KEY.test(key) || (withAddress && NAME_KEY.test(key));
    personalStrings((value as Record<string, unknown>)[key], `${path}.${key}`, personal, out);
  }
}

interface Erased {
  addresses: ReadonlySet<string>;
  customers: ReadonlySet<number>;
  /** Per collection name and rule field (`by`): the `id` of each document a rule on that field matched. */
  matched: Map<string, Map<string, Set<number>>>;
}

/** The paths of `doc` to null under `personal`; records the documents its rules matched for byReference. */
function planDoc(collection: string, doc: ReadDoc, personal: PersonalDocFields, erased: Erased): string[] {
  const paths = new Set<string>();
  const add = (path: string) => {
    if (isSet(valueAt(doc, path))) paths.add(path);
  };
  const matched = (by: string) => {
    if (typeof doc.id !== 'number') return;
    let fields = erased.matched.get(collection);
    if (!fields) erased.matched.set(collection, (fields = new Map()));
    let ids = fields.get(by);
    if (!ids) fields.set(by, (ids = new Set()));
    ids.add(doc.id);
  };
  for (const rule of personal.byAddress ?? []) {
    const value = valueAt(doc, rule.match);
    if (typeof value !== 'string' || !erased.addresses.has(normaliseAddress(value))) continue;
    rule.erase.forEach(add);
    matched(rule.match);
  }
  for (const rule of personal.byCustomer ?? []) {
    const value = valueAt(doc, rule.match);
    if (typeof value !== 'number' || !erased.customers.has(value)) continue;
    rule.erase.forEach(add);
    matched(rule.match);
  }
  for (const rule of personal.addressLists ?? []) {
    const list = valueAt(doc, rule.list);
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      if (typeof item !== 'string' || !erased.addresses.has(normaliseAddress(item))) return;
      add(`${rule.list}.${i}`);
      for (const also of rule.alsoLists ?? []) add(`${also}.${i}`);
    });
  }
  for (const path of personal.deep ?? []) {
    const value = valueAt(doc, path);
    if (!mentions(value, erased.addresses)) continue;
    const found: string[] = [];
    personalStrings(value, path, false, found);
    found.forEach(add);
  }
  for (const rule of personal.byReference ?? []) {
    const value = valueAt(doc, rule.match);
    if (typeof value === 'number' && erased.matched.get(rule.of)?.get(rule.by)?.has(value)) rule.erase.forEach(add);
  }
  return [...paths];
}

/** The declared collections, those whose byReference rules refer to others after them. */
function inPlanOrder(collections: readonly CollectionDef[]): CollectionDef[] {
  const declared = collections.filter((c) => c.personal !== undefined);
  return [...declared.filter((c) => !c.personal!.byReference?.length), ...declared.filter((c) => c.personal!.byReference?.length)];
}

/**
 * What to null in `merchantId`'s documents of the declared collections so that none holds
 * `addresses` or the customers `customerIds` any more: one pass over every document of the merchant
 * in each declared collection (a page of a thousand at a time, in the collection's order), once
 * per erasure job. Paths already null are left out, and so are documents with none left.
 */
export async function planErasure(
  store: ReadStore,
  collections: readonly CollectionDef[],
  merchantId: number,
  addresses: readonly string[],
  customerIds: readonly number[],
): Promise<ScrubPlan> {
  const erased: Erased = { addresses: new Set(addresses.map(normaliseAddress)), customers: new Set(customerIds), matched: new Map() };
  const plan: ScrubPlan = {};
  for (const def of inPlanOrder(collections)) {
    for await (const doc of everyDoc(store.collection(def), { merchant_id: merchantId })) {
      if (doc.merchant_id !== merchantId) continue;
      const paths = planDoc(def.name, doc, def.personal!, erased);
      if (paths.length > 0) (plan[def.name] ??= {})[doc._id] = paths;
    }
  }
  return plan;
}

/**
 * One projection per declared collection that applies PersonalDataErased: each document of its
 * collection in the plan gets the listed paths set to null, nothing else changed. They write the
 * collections the features' projections write (the runner binds both to the same collection).
 */
export function erasureProjections(collections: readonly CollectionDef[]): Projection[] {
  return collections
    .filter((def) => def.personal !== undefined)
    .map((def): Projection => ({
      name: `${def.name}.erasure`,
      collection: def,
      handles: [PERSONAL_DATA_ERASED],
      keys: (event) => Object.keys((event.data as PersonalDataErased['data']).scrub[def.name] ?? {}),
      evolve(doc, event, key) {
        const data = event.data as PersonalDataErased['data'];
        if (doc === null || doc.merchant_id !== data.merchantId) return doc;
        return withNulls(doc, data.scrub[def.name]?.[key] ?? []);
      },
    }));
}
