/**
 * Which values of an event are personal, and whose (the data subjects): each feature declares it
 * for the events it records (its `personalData` map), and the event store encrypts those values
 * with their subjects' keys (personal-data-event-store.ts). docs/privacy.md lists them.
 */

/** Whose data a value is: an address of a merchant's, a customer of a merchant's, or an erasure job (its own list of addresses). */
export type Subject =
  | { readonly kind: 'email'; readonly merchantId: number; readonly email: string }
  | { readonly kind: 'customer'; readonly merchantId: number; readonly customerId: number }
  | { readonly kind: 'job'; readonly jobId: number };

export type Path = readonly (string | number)[];

/** A personal value at `path` of an event's data. It is erased when any of its subjects is (a message names its sender and its recipient). */
export interface PersonalValue {
  readonly path: Path;
  readonly subjects: readonly Subject[];
}

/** The personal values of one event type, found in the data as recorded (a pure function of it). */
export type PersonalFields = (data: never) => readonly PersonalValue[];

export type PersonalDataMap = Readonly<Record<string, PersonalFields>>;

/** Addresses are compared as the service stores them for lookups: trimmed, lower case. */
export const normaliseAddress = (email: string): string => email.trim().toLowerCase();

/** A value lower-cased for lookups, or null where it is absent or was erased (an erased value reads null). */
export const lowerCased = (value: string | null | undefined): string | null => (typeof value === 'string' ? value.toLowerCase() : null);

/** The subject of an address, when `email` is one. */
export function emailSubject(merchantId: number, email: unknown): Subject[] {
  return typeof email === 'string' && email.trim() !== '' ? [{ kind: 'email', merchantId, email: normaliseAddress(email) }] : [];
}

/** The subject of a customer, when `customerId` names one. */
export function customerSubject(merchantId: number, customerId: unknown): Subject[] {
  return typeof customerId === 'number' ? [{ kind: 'customer', merchantId, customerId }] : [];
}

/** The top-level fields `names` of `data` that hold a value, each under `subjects`. */
export function fieldsOf(data: Record<string, unknown>, names: readonly string[], subjects: readonly Subject[], under: Path = []): PersonalValue[] {
  if (subjects.length === 0) return [];
  const out: PersonalValue[] = [];
  for (const name of names) if (data[name] !== null && data[name] !== undefined) out.push({ path: [...under, name], subjects });
  return out;
}

/** Each item of the list `data[name]`, under the subjects `subjectsOf` names for it (an address list: each address its own subject). */
export function itemsOf(
  data: Record<string, unknown>,
  name: string,
  subjectsOf: (item: unknown, index: number) => readonly Subject[],
  under: Path = [],
): PersonalValue[] {
  const list = data[name];
  if (!Array.isArray(list)) return [];
  const out: PersonalValue[] = [];
  list.forEach((item, index) => {
    const subjects = subjectsOf(item, index);
    if (subjects.length > 0 && item !== null) out.push({ path: [...under, name, index], subjects });
  });
  return out;
}

/** Merges the personal values of several declarations of one event. */
export const allOf = (...lists: (readonly PersonalValue[])[]): PersonalValue[] => lists.flat();

/** Where a collection's documents keep personal values, and whose they are (CollectionDef.personal; applied by read-model-erasure.ts). */
export interface PersonalDocFields {
  /** A document whose `match` field (dot path) holds an erased address (compared trimmed, lower case) gets each `erase` path set to null. */
  byAddress?: readonly { match: string; erase: readonly string[] }[];
  /** A document whose `match` field holds an erased customer's id (number) gets each `erase` path set to null. */
  byCustomer?: readonly { match: string; erase: readonly string[] }[];
  /** Lists of addresses (dot path): each item that is an erased address becomes null (and the items of `alsoLists` at the same index: lower-cased copies). */
  addressLists?: readonly { list: string; alsoLists?: readonly string[] }[];
  /**
   * Free-form JSON at these paths: when any string inside equals an erased address (case-insensitively),
   * every string inside under a personal-looking key (PERSONAL_KEY) becomes null.
   */
  deep?: readonly string[];
  /**
   * A document whose `match` field (number) is the `id` of a document of collection `of` that an
   * erased address or customer matched through its rule on field `by`, gets each `erase` path set
   * to null (the messages sent for a share whose advocate is erased carry the advocate's words).
   * Collections with such rules are planned after those they refer to.
   */
  byReference?: readonly { match: string; of: string; by: string; erase: readonly string[] }[];
}
