/**
 * The personal values of a webhook payload (the JSON body sent to the merchant), found by the names
 * its keys have at any depth, so a new payload field of a known kind is sealed without a change
 * here. A payload is one record of whoever it names: each of its personal values is sealed under
 * the subjects of every address and customer id found in it, and is erased when any one of them
 * is (a conversion payload naming advocate and friend loses both addresses when either is erased).
 */
import { customerSubject, emailSubject, Path, PersonalValue, Subject } from '../../platform/personal-data/personal-fields.js';

/** Keys whose value names a person by address: `email_address`, `friend_email_address`, `email_recipients`, `to`… */
const ADDRESS_KEY = /^(?:(?:[a-z]+_)*email(?:_address)?|(?:[a-z]+_)*(?:email_)?recipients|to)$/;
/** Keys whose value is a customer id: `customer_id`, `advocate_customer_id`… */
const CUSTOMER_KEY = /^(?:[a-z]+_)*customer_id$/;
/** Keys whose value is personal without naming anyone: words, network traces, names. */
const PERSONAL_KEYS = new Set(['message', 'reason', 'subject', 'text', 'ip_address', 'user_agent', 'referrer', 'first_name', 'last_name', 'name']);

const isPersonalKey = (key: string) => ADDRESS_KEY.test(key) || PERSONAL_KEYS.has(key);

/** The personal values of `payload` at their paths (below `under`), each under every subject the payload names. */
export function payloadPersonalValues(merchantId: number, payload: unknown, under: Path = []): PersonalValue[] {
  const subjects = new Map<string, Subject>();
  const paths: Path[] = [];
  const addSubjects = (found: Subject[]) => {
    for (const subject of found) subjects.set(JSON.stringify(subject), subject);
  };
  const walk = (value: unknown, path: Path): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, [...path, i]));
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (ADDRESS_KEY.test(key)) for (const address of Array.isArray(item) ? item : [item]) addSubjects(emailSubject(merchantId, address));
      if (CUSTOMER_KEY.test(key)) addSubjects(customerSubject(merchantId, item));
      if (isPersonalKey(key)) {
        if (item !== null && item !== undefined) paths.push([...path, key]);
      } else walk(item, [...path, key]);
    }
  };
  walk(payload, under);
  if (subjects.size === 0) return [];
  const all = [...subjects.values()];
  return paths.map((path) => ({ path, subjects: all }));
}
