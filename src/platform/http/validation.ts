/**
 * Request validation with class-validator: unknown properties, missing required ones, wrong
 * types and bad values become structured reports `{property, code, message}` in a 400.
 * Types are strict (no implicit conversion): "5" is not a number in a JSON body.
 */
import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
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
    if (metadata.type === 'query' && metadata.metatype && metadata.metatype !== Object) {
      for (const [name, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (Array.isArray(v)) throw new BadRequestError([`query parameter ${name} must be given once`]);
      }
    }
    return super.transform(value, metadata);
  }
}
