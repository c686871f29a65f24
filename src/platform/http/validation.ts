/**
 * Request validation with class-validator: unknown properties, missing required ones, wrong
 * types and bad values become structured reports `{property, code, message}` in a 400.
 * Types are strict (no implicit conversion): "5" is not a number in a JSON body.
 */
import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { TransformationType } from 'class-transformer';
import type { MetadataStorage as TransformerMetadataStorage } from 'class-transformer/types/MetadataStorage.js';
import { IS_OPTIONAL, ValidationTypes, getMetadataStorage, validate } from 'class-validator';
import { createRequire } from 'node:module';
import { BadRequestError, ErrorElement, unrecognizedProperty } from '../errors.js';
import { memoiseValidationMetadata } from './validation-metadata-cache.js';
import {
  DETACHED_MAPS,
  EACH_STRING,
  ELEMENT_FAULT,
  hasOwnCharacterRule,
  isIdentifierName,
  KEY_VALUE_MAP,
  MAX_ELEMENT_REPORTS,
  SPOOFING_CHARACTER,
  spoofingFault,
} from './validators.js';

const TYPE_CONSTRAINTS = new Set([
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isObject',
  'isArray',
  'nestedValidation',
  KEY_VALUE_MAP,
  'isIdType',
  EACH_STRING,
]);

/** Number checks that also refuse some numbers (1.5 for an integer, too many decimal places). */
const NUMBER_CONSTRAINTS = new Set(['isInt', 'isNumber']);

function codeOf(constraint: string, value: unknown): string {
  if (constraint === 'whitelistValidation') return 'unrecognized_property';
  if (constraint === 'isDefined') return 'missing';
  // A number refused by a number check has the right JSON type and a bad value.
  if (NUMBER_CONSTRAINTS.has(constraint) && typeof value === 'number') return 'invalid';
  if (TYPE_CONSTRAINTS.has(constraint)) return 'wrong_type';
  return 'invalid';
}

/**
 * Reports of a list's bad elements, each with its index in the property (`codes.3`) and the end of
 * its message: at most MAX_ELEMENT_REPORTS, then one report on the list counting the rest.
 */
export function elementReports(property: string, faults: { index: number; message: string }[], code: string): ErrorElement[] {
  const out: ErrorElement[] = faults
    .slice(0, MAX_ELEMENT_REPORTS)
    .map(({ index, message }) => ({ property: `${property}.${index}`, code, message: `${property}.${index} ${message}` }));
  const more = faults.length - out.length;
  if (more > 0)
    out.push({
      property,
      code: 'invalid',
      message: `${more} more value${more === 1 ? ' in ' + property + ' is' : 's in ' + property + ' are'} not valid (the first ${MAX_ELEMENT_REPORTS} are reported)`,
    });
  return out;
}

/** An EachElement rule's faults in `values`. */
function elementFaults(values: unknown[], fault: (element: unknown) => string | null): { index: number; message: string }[] {
  const out: { index: number; message: string }[] = [];
  values.forEach((element, index) => {
    const message = fault(element);
    if (message !== null) out.push({ index, message });
  });
  return out;
}

export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorElement[] {
  const out: ErrorElement[] = [];
  for (const error of errors) {
    const property = parent ? `${parent}.${error.property}` : error.property;
    const constraints = Object.entries(error.constraints ?? {});
    // A missing property only needs the one report, not one per rule it also breaks.
    const missing = constraints.find(([name]) => name === 'isDefined');
    for (const [constraint, message] of missing ? [missing] : constraints) {
      const elementFault = (error.contexts?.[constraint] as { [ELEMENT_FAULT]?: (element: unknown) => string | null } | undefined)?.[ELEMENT_FAULT];
      if (elementFault && Array.isArray(error.value))
        out.push(...elementReports(property, elementFaults(error.value, elementFault), codeOf(constraint, undefined)));
      else out.push({ property, code: codeOf(constraint, error.value), message: message.replace(error.property, property) });
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, property));
  }
  // A value of the wrong type needs no further complaints about its length or format, and one
  // report of its type: an object property that gets a string breaks both isObject and the
  // nested validation ("must be an object", "nested property … must be either object or array").
  const wrongType = new Set(out.filter((e) => typeof e !== 'string' && e.code === 'wrong_type').map((e) => (e as { property: string }).property));
  const typeReported = new Set<string>();
  return out.filter((e) => {
    if (typeof e === 'string' || !wrongType.has(e.property)) return true;
    if (e.code === 'wrong_type' && !typeReported.has(e.property)) {
      typeReported.add(e.property);
      return true;
    }
    return e.code !== 'invalid' && e.code !== 'wrong_type';
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deepest nesting a body or query may have: far beyond any DTO, well within the stack of every walk over it. */
export const MAX_DEPTH = 32;

/** What the pipe needs to know of a body or query before the checks that depend on it. */
interface Shape {
  /** Objects or arrays nested more than `MAX_DEPTH` levels. */
  tooDeep: boolean;
  /** A null anywhere (most bodies have none, and skip the null handling's metadata lookups). */
  nulls: boolean;
  /** A key named like an inherited property anywhere (free-form maps included: inheritedNameFaults tells them apart). */
  inheritedNames: boolean;
  /** A string or key that is not well-formed UTF-16 (a lone surrogate, which JSON's \ud800 escapes can carry). */
  illFormed: boolean;
  /** A string holding a control or bidirectional formatting character (refused in identifiers: spoofingFaults). */
  spoofing: boolean;
}

/**
 * Text with a lone surrogate cannot be encoded as UTF-8: validators that encode it throw (a 500),
 * and the store would write it as U+FFFD, so that two different ids became one.
 */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** One walk over `value`, without recursion (it stops at the first level too deep). */
function shapeOf(value: unknown): Shape {
  const shape: Shape = { tooDeep: false, nulls: value === null, inheritedNames: false, illFormed: false, spoofing: false };
  const stack: [object, number][] = value !== null && typeof value === 'object' ? [[value, 0]] : [];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (depth >= MAX_DEPTH) {
      shape.tooDeep = true;
      break;
    }
    const isArray = Array.isArray(item);
    for (const key of Object.keys(item)) {
      if (!isArray) {
        if (INHERITED_NAMES.has(key)) shape.inheritedNames = true;
        else if (!isWellFormed(key)) shape.illFormed = true;
      }
      const child = (item as Record<string, unknown>)[key];
      if (child === null) shape.nulls = true;
      else if (typeof child === 'object') stack.push([child, depth + 1]);
      else if (typeof child === 'string') {
        if (!isWellFormed(child)) shape.illFormed = true;
        else if (SPOOFING_CHARACTER.test(child)) shape.spoofing = true;
      }
    }
  }
  return shape;
}

/**
 * Names every object inherits (toString, hasOwnProperty, constructor, __proto__ …): class-validator's
 * whitelist looks properties up in a plain object, so it takes these for declared ones and lets
 * them through. No DTO declares one.
 */
const INHERITED_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

type Dto = new () => object;

const freeFormProperties = new WeakMap<object, ReadonlySet<string>>();

/**
 * The DTO's free-form maps (IsKeyValueMap: link parameters, custom headers), whose keys are data:
 * any name, `toString` and `constructor` included (spec §4.2: "any key-value pair may be set").
 */
function freeFormPropertiesOf(dto: Dto): ReadonlySet<string> {
  let names = freeFormProperties.get(dto);
  if (names === undefined) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    names = new Set(metadata.filter((m) => m.name === KEY_VALUE_MAP).map((m) => m.propertyName));
    freeFormProperties.set(dto, names);
  }
  return names;
}

const nestedClasses = new WeakMap<object, ReadonlyMap<string, Dto>>();

/** The DTO's properties whose values class-transformer builds as DTOs of their own (@Type), by class. */
function nestedDtosOf(dto: Dto): ReadonlyMap<string, Dto> {
  let nested = nestedClasses.get(dto);
  if (nested === undefined) {
    const properties = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', true, false)
        .map((m) => m.propertyName),
    );
    const found = new Map<string, Dto>();
    for (const property of properties) {
      const type = transformerMetadata.findTypeMetadata(dto, property)?.typeFunction?.();
      if (typeof type === 'function' && type.prototype !== undefined) found.set(property, type as Dto);
    }
    nested = found;
    nestedClasses.set(dto, nested);
  }
  return nested;
}

/**
 * Unrecognized-property reports for inherited names used as keys, at any depth, except inside a
 * DTO's free-form maps: there a key is data (`dto`: the class of `value`'s level, when it is one).
 */
function inheritedNameFaults(value: unknown, parent: string, dto: Dto | undefined, out: ErrorElement[] = []): ErrorElement[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => inheritedNameFaults(item, `${parent}${i}.`, dto, out));
  } else if (isPlainObject(value)) {
    const freeForm = dto && freeFormPropertiesOf(dto);
    for (const key of Object.keys(value)) {
      if (INHERITED_NAMES.has(key)) out.push(unrecognizedProperty(`${parent}${key}`));
      else if (!freeForm?.has(key)) inheritedNameFaults(value[key], `${parent}${key}.`, dto && nestedDtosOf(dto).get(key), out);
    }
  }
  return out;
}

/**
 * `value` with each free-form map (an object under an IsKeyValueMap property, at the DTO's level
 * or a nested DTO's) set aside under DETACHED_MAPS and replaced by `{}`, which is all that
 * class-transformer and Nest's pipe then see of it; IsKeyValueMap's transform puts the map back,
 * as sent, on the instance that is validated. Through them, `{"toString": "x", "constructor":
 * "y"}` became `{}` (a key an object inherits is skipped, `constructor` and `prototype` keys
 * are deleted). Returns `value` itself when it holds no free-form map.
 */
export function withFreeFormMapsDetached(value: Record<string, unknown>, dto: Dto): Record<string, unknown> {
  const freeForm = freeFormPropertiesOf(dto);
  const nested = nestedDtosOf(dto);
  if (freeForm.size === 0 && nested.size === 0) return value;
  let out = value;
  const copy = () => (out === value ? (out = { ...value }) : out);
  for (const key of freeForm) {
    const map = Object.hasOwn(value, key) ? value[key] : undefined;
    if (!isPlainObject(map)) continue;
    const detached = copy() as Record<string | symbol, unknown>;
    ((detached[DETACHED_MAPS] ??= new Map<string, unknown>()) as Map<string, unknown>).set(key, map);
    detached[key] = {};
  }
  for (const [key, type] of nested) {
    const v = Object.hasOwn(value, key) ? value[key] : undefined;
    let next: unknown = v;
    if (isPlainObject(v)) next = withFreeFormMapsDetached(v, type);
    else if (Array.isArray(v)) {
      const items = v.map((item) => (isPlainObject(item) ? withFreeFormMapsDetached(item, type) : item));
      next = items.some((item, i) => item !== v[i]) ? items : v;
    }
    if (next !== v) copy()[key] = next;
  }
  return out;
}

/** Reports for every ill-formed string or key, by its path. */
function illFormedFaults(value: unknown, parent: string, out: ErrorElement[] = []): ErrorElement[] {
  const fault = (property: string) =>
    out.push({ property, code: 'invalid', message: `property ${property} must be well-formed Unicode text (it holds a lone surrogate)` });
  if (Array.isArray(value)) {
    value.forEach((item, i) => (typeof item === 'string' ? !isWellFormed(item) && fault(`${parent}${i}`) : illFormedFaults(item, `${parent}${i}.`, out)));
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (!isWellFormed(key)) fault(`${parent}${key.replace(/\p{Surrogate}/gu, '\uFFFD')}`);
      else if (typeof item === 'string') {
        if (!isWellFormed(item)) fault(`${parent}${key}`);
      } else illFormedFaults(item, `${parent}${key}.`, out);
    }
  }
  return out;
}

/**
 * Reports for identifiers (isIdentifierName: ids, codes, SKUs, email addresses, at any depth, list
 * elements by their list's name) holding a control or bidirectional formatting character; free-form
 * maps are data and left alone, as are properties with a rule of their own (HasOwnCharacterRule).
 * `name`: the property `value` is under.
 */
function spoofingFaults(value: unknown, parent: string, name: string, dto: Dto | undefined, out: ErrorElement[] = []): ErrorElement[] {
  if (typeof value === 'string') {
    if (isIdentifierName(name) && SPOOFING_CHARACTER.test(value)) out.push(spoofingFault(parent.slice(0, -1)));
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => spoofingFaults(item, `${parent}${i}.`, name, dto, out));
  } else if (isPlainObject(value)) {
    const freeForm = dto && freeFormPropertiesOf(dto);
    for (const key of Object.keys(value)) {
      if (freeForm?.has(key) || (dto && hasOwnCharacterRule(dto, key))) continue;
      spoofingFaults(value[key], `${parent}${key}.`, key, dto && nestedDtosOf(dto).get(key), out);
    }
  }
  return out;
}

/** Where @nestjs/swagger keeps each documented property's options (ApiProperty / ApiPropertyOptional). */
const DOCUMENTED_PROPERTY = 'swagger/apiModelProperties';

interface DocumentedProperty {
  nullable?: boolean;
  type?: unknown;
}

/** A DTO class named by a property's documented type (a class, or a thunk returning one), if any. */
function dtoClassOf(type: unknown): (new () => object) | undefined {
  if (typeof type !== 'function') return undefined;
  const resolved = type.prototype === undefined ? (type as () => unknown)() : type;
  return typeof resolved === 'function' && resolved.prototype !== undefined ? (resolved as new () => object) : undefined;
}

const optionalProperties = new WeakMap<object, ReadonlySet<string>>();

/** The DTO's properties marked @IsOptional (whose validators skip both undefined and null). */
function optionalPropertiesOf(dto: new () => object): ReadonlySet<string> {
  let names = optionalProperties.get(dto);
  if (names === undefined) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    names = new Set(metadata.filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION && m.name === IS_OPTIONAL).map((m) => m.propertyName));
    optionalProperties.set(dto, names);
  }
  return names;
}

/**
 * A body with `null` removed from every optional property that does not document null as a
 * value: the validators already treat such a null as absent, and so must the handlers (a client
 * that sends `"customer_id": null` means that it has none). Null stays where it is a value
 * (documented `nullable`: PATCH fields it clears) and where the validators check it (required
 * properties, update fields that refuse null): those answer as before. Nested DTOs and arrays
 * of them are handled the same way; undocumented properties are left for the whitelist to
 * refuse. Returns `value` itself when nothing was removed.
 */
export function withoutUndocumentedNulls(value: Record<string, unknown>, dto: new () => object): Record<string, unknown> {
  let out = value;
  for (const key of Object.keys(value)) {
    const documented = Reflect.getMetadata(DOCUMENTED_PROPERTY, dto.prototype, key) as DocumentedProperty | undefined;
    if (documented === undefined) continue;
    const v = value[key];
    let next: unknown = v;
    if (v === null) {
      if (documented.nullable === true || !optionalPropertiesOf(dto).has(key)) continue;
      next = undefined;
    } else {
      const nested = dtoClassOf(documented.type);
      if (nested === undefined) continue;
      if (isPlainObject(v)) next = withoutUndocumentedNulls(v, nested);
      else if (Array.isArray(v)) {
        const items = v.map((item) => (isPlainObject(item) ? withoutUndocumentedNulls(item, nested) : item));
        next = items.some((item, i) => item !== v[i]) ? items : v;
      }
    }
    if (next === v) continue;
    if (out === value) out = { ...value };
    if (next === undefined) delete out[key];
    else out[key] = next;
  }
  return out;
}

/** class-transformer's registry of @Type, @Transform, @Expose and @Exclude (what @nestjs/mapped-types reads too). */
const transformerMetadata = (createRequire(import.meta.url)('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerMetadataStorage })
  .defaultMetadataStorage;

const copiedAsIs = new WeakMap<object, boolean>();

/**
 * True when class-transformer would make an instance of `dto` from a query by copying its
 * values onto `new dto()`: no class-transformer decorator on the class or on any property that
 * it validates (or their ancestors'), and no implicit conversion (the pipe's options). Query
 * values are strings (repeated parameters are refused before), which it then copies as they are.
 */
export function copiesQueryAsIs(dto: new () => object): boolean {
  let known = copiedAsIs.get(dto);
  if (known === undefined) {
    const properties = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', true, false)
        .map((m) => m.propertyName),
    );
    known =
      transformerMetadata.getStrategy(dto) === 'none' &&
      transformerMetadata.getExposedMetadatas(dto).length === 0 &&
      transformerMetadata.getExcludedMetadatas(dto).length === 0 &&
      [...properties].every(
        (property) =>
          transformerMetadata.findTypeMetadata(dto, property) === undefined &&
          transformerMetadata.findTransformMetadatas(dto, property, TransformationType.PLAIN_TO_CLASS).length === 0,
      );
    copiedAsIs.set(dto, known);
  }
  return known;
}

@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    memoiseValidationMetadata();
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      // The value is kept for codeOf only; reports never echo it.
      validationError: { target: false, value: true },
      stopAtFirstError: false,
      exceptionFactory: (errors) => new BadRequestError(flattenValidationErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Path parameters that name an id, a code or an email address: same rule as body and query identifiers.
    if (metadata.type === 'param' && typeof value === 'string' && metadata.data && isIdentifierName(metadata.data) && SPOOFING_CHARACTER.test(value)) {
      throw new BadRequestError([spoofingFault(metadata.data)]);
    }
    const dto = metadata.metatype && metadata.metatype !== Object ? (metadata.metatype as new () => object) : undefined;
    if (dto === undefined || (metadata.type !== 'body' && metadata.type !== 'query')) return super.transform(value, metadata);
    if (metadata.type === 'body' && !isPlainObject(value)) throw new BadRequestError(['request body must be a JSON object']);
    const shape = shapeOf(value);
    // Before anything else walks it (class-transformer, class-validator): a stack overflow is a 500.
    if (shape.tooDeep) throw new BadRequestError([`request ${metadata.type} is nested more than ${MAX_DEPTH} levels deep`]);
    if (shape.inheritedNames) {
      const faults = inheritedNameFaults(value, '', dto);
      if (faults.length > 0) throw new BadRequestError(faults);
    }
    if (shape.illFormed) throw new BadRequestError(illFormedFaults(value, ''));
    if (metadata.type === 'body' && shape.nulls) value = withoutUndocumentedNulls(value as Record<string, unknown>, dto);
    if (metadata.type === 'body') value = withFreeFormMapsDetached(value as Record<string, unknown>, dto);
    if (metadata.type === 'query') {
      const query = (value ?? {}) as Record<string, unknown>;
      for (const [name, v] of Object.entries(query)) {
        if (Array.isArray(v)) throw new BadRequestError([`query parameter ${name} must be given once`]);
      }
    }
    const valid =
      metadata.type === 'query' && copiesQueryAsIs(dto)
        ? await this.validateQuery((value ?? {}) as Record<string, unknown>, dto)
        : await super.transform(value, metadata);
    // After the DTO's own rules, whose reports are more precise (an email's), on the values as the
    // handler gets them.
    if (shape.spoofing) {
      const faults = spoofingFaults(valid, '', '', dto);
      if (faults.length > 0) throw new BadRequestError(faults);
    }
    return valid;
  }

  /**
   * What ValidationPipe.transform does with such a query (copiesQueryAsIs), without
   * class-transformer's walk of the class's metadata and the pipe's walks for arrays, binary
   * values and prototype keys, which a flat map of strings, checked above, does not need: about
   * 11 µs of a lookup's 105 (docs/benchmarks.md). Its answers are the pipe's own, which a spec
   * holds it to for every query DTO of the API.
   */
  private async validateQuery(query: Record<string, unknown>, dto: new () => object): Promise<object> {
    const entity = new dto() as Record<string, unknown>;
    // The pipe strips `prototype` (with `__proto__` and `constructor`, refused above) before anything reads the query.
    for (const key of Object.keys(query)) if (key !== 'prototype') entity[key] = query[key];
    const errors = await validate(entity, this.validatorOptions);
    if (errors.length > 0) throw await this.exceptionFactory(errors);
    return entity;
  }
}
