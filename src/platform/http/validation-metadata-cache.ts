/**
 * class-validator looks up a DTO's rules on every validation by filtering its whole metadata
 * storage, including an `instanceof` test against every decorated class (for inherited rules):
 * the cost grows with the number of DTOs and was the largest single cost of the hot read and
 * write routes (about 9 % of a lookup's CPU). The rules only change when a decorator runs, so
 * the lookups are memoised per class and options, and the memo is dropped whenever a rule or
 * constraint is added. The memoised arrays are only read by class-validator's executor.
 */
import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];
type Metadatas = ReturnType<Lookup>;
type Grouped = ReturnType<Storage['groupByPropertyName']>;

const installed = new WeakSet<Storage>();

export function memoiseValidationMetadata(storage: Storage = getMetadataStorage()): void {
  if (installed.has(storage)) return;
  installed.add(storage);
  let byTarget = new WeakMap<object, Map<string, Metadatas>>();
  let grouped = new WeakMap<Metadatas, Grouped>();
  const forget = () => {
    byTarget = new WeakMap();
    grouped = new WeakMap();
  };

  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema ?? ''}\u0000${always}\u0000${strictGroups}\u0000${groups ? groups.join('\u0001') : '-'}`;
    let perTarget = byTarget.get(target);
    if (!perTarget) byTarget.set(target, (perTarget = new Map()));
    let found = perTarget.get(key);
    if (!found) perTarget.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };

  const group = storage.groupByPropertyName.bind(storage);
  storage.groupByPropertyName = (metadatas) => {
    let found = grouped.get(metadatas);
    if (!found) grouped.set(metadatas, (found = group(metadatas)));
    return found;
  };

  for (const name of ['addValidationMetadata', 'addConstraintMetadata', 'addValidationSchema'] as const) {
    const add = (storage[name] as (arg: never) => void).bind(storage);
    (storage as unknown as Record<string, (arg: never) => void>)[name] = (arg: never) => {
      forget();
      add(arg);
    };
  }
}
