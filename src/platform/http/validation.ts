/**
 * Request validation with class-validator: unknown properties, missing required ones, wrong
 * types and bad values become structured reports `{property, code, message}` in a 400.
 * Types are strict (no implicit conversion): "5" is not a number in a JSON body.
 */
import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { IS_OPTIONAL, ValidationTypes, getMetadataStorage } from 'class-validator';
import { BadRequestError, ErrorElement } from '../errors.js';
import { memoiseValidationMetadata } from './validation-metadata-cache.js';

const TYPE_CONSTRAINTS = new Set([
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isObject',
  'isArray',
  'nestedValidation',
  'isPlainObject',
  'isIdType',
]);

function codeOf(constraint: string): string {
  if (constraint === 'whitelistValidation') return 'unrecognized_property';
  if (constraint === 'isDefined') return 'missing';
  if (TYPE_CONSTRAINTS.has(constraint)) return 'wrong_type';
  return 'invalid';
}

export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorElement[] {
  const out: ErrorElement[] = [];
  for (const error of errors) {
    const property = parent ? `${parent}.${error.property}` : error.property;
    const constraints = Object.entries(error.constraints ?? {});
    // A missing property only needs the one report, not one per rule it also breaks.
    const missing = constraints.find(([name]) => name === 'isDefined');
    for (const [constraint, message] of missing ? [missing] : constraints) {
      out.push({ property, code: codeOf(constraint), message: message.replace(error.property, property) });
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, property));
  }
  // A value of the wrong type needs no further complaints about its length or format.
  const wrongType = new Set(out.filter((e) => typeof e !== 'string' && e.code === 'wrong_type').map((e) => (e as { property: string }).property));
  return out.filter((e) => typeof e === 'string' || e.code !== 'invalid' || !wrongType.has(e.property));
}


function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deepest nesting a body or query may have: far beyond any DTO, well within the stack of every walk over it. */
export const MAX_DEPTH = 32;

/** True when `value` nests objects or arrays more than `MAX_DEPTH` levels (walked without recursion). */
function nestedTooDeeply(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_DEPTH) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Names every object inherits (toString, hasOwnProperty, constructor, __proto__ …): class-validator's
 * whitelist looks properties up in a plain object, so it takes these for declared ones and lets
 * them through. No DTO declares one.
 */
const INHERITED_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Unrecognized-property reports for inherited names used as keys, at any depth. */
function inheritedNameFaults(value: unknown, parent: string, out: ErrorElement[] = []): ErrorElement[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => inheritedNameFaults(item, `${parent}${i}.`, out));
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (INHERITED_NAMES.has(key)) out.push({ property: `${parent}${key}`, code: 'unrecognized_property', message: `property ${parent}${key} should not exist` });
      else inheritedNameFaults(value[key], `${parent}${key}.`, out);
    }
  }
  return out;
}

/** True when a null appears anywhere in `value` (most bodies have none, and skip the metadata lookups). */
function holdsNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (holdsNull(item)) return true;
  return false;
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
      validationError: { target: false, value: false },
      stopAtFirstError: false,
      exceptionFactory: (errors) => new BadRequestError(flattenValidationErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object && !isPlainObject(value)) {
      throw new BadRequestError(['request body must be a JSON object']);
    }
    if ((metadata.type === 'body' || metadata.type === 'query') && metadata.metatype && metadata.metatype !== Object) {
      // Before anything walks it (here, class-transformer, class-validator): a stack overflow is a 500.
      if (nestedTooDeeply(value)) throw new BadRequestError([`request ${metadata.type} is nested more than ${MAX_DEPTH} levels deep`]);
      const faults = inheritedNameFaults(value, '');
      if (faults.length > 0) throw new BadRequestError(faults);
    }
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object && holdsNull(value)) {
      value = withoutUndocumentedNulls(value as Record<string, unknown>, metadata.metatype as new () => object);
    }
    if (metadata.type === 'query' && metadata.metatype && metadata.metatype !== Object) {
      for (const [name, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (Array.isArray(v)) throw new BadRequestError([`query parameter ${name} must be given once`]);
      }
    }
    return super.transform(value, metadata);
  }
}
