/**
 * The OpenAPI document's request schemas and parameters say what the validation refuses, so that a
 * request valid against the document is not refused with 400 (what a generated client or an API
 * tester such as Schemathesis sends): bodies take no property they do not list (the validation pipe
 * refuses unknown ones), lengths, list sizes, email/IP/URL formats from the class-validator rules, and
 * identifiers (validators.ts, isIdentifierName) hold no control or bidirectional formatting character.
 */
import type { OpenAPIObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { type ClassRef, isIdentifierName, SPOOFING_CHARACTER } from './validators.js';

type Schema = Record<string, unknown>;

interface Rule {
  propertyName: string;
  name?: string;
  type: string;
  each?: boolean;
  constraints?: unknown[];
}

/** A string without any SPOOFING_CHARACTER, as a JSON Schema (ECMA 262) pattern. */
export const IDENTIFIER_PATTERN = `^[^${SPOOFING_CHARACTER.source.slice(1, -1)}]*$`;

const ID_FILTER: Schema = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
const DAY: Schema = { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' };
/**
 * Query parameters that paging.ts and optionalIdFilter (list-query.dto.ts) read by name, not through
 * class-validator: their DTOs declare them strings, as the query gives them.
 */
const QUERY_SCHEMAS: Record<string, Schema> = {
  offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  limit: { type: 'integer', minimum: 1, maximum: 100 },
  from: DAY,
  to: DAY,
  from_date: DAY,
  to_date: DAY,
  campaign_id: ID_FILTER,
  widget_id: ID_FILTER,
  customer_id: ID_FILTER,
  endpoint_id: ID_FILTER,
};

/** Schemas of properties that hold maps of any keys: they list no properties and take any. */
const MAP_RULES = ['isKeyValueMap', 'isLinkParameters', 'isObject'];

/** The rules each class's properties (inherited ones included) declare, by class name and property. */
function rulesOf(classes: readonly ClassRef[]): Map<string, Map<string, Rule[]>> {
  const out = new Map<string, Map<string, Rule[]>>();
  const storage = getMetadataStorage();
  const add = (name: string, rules: readonly Rule[]) => {
    const properties = out.get(name) ?? new Map<string, Rule[]>();
    for (const rule of rules) properties.set(rule.propertyName, [...(properties.get(rule.propertyName) ?? []), rule]);
    out.set(name, properties);
  };
  for (const [target, rules] of (storage as unknown as { validationMetadatas: Map<ClassRef, Rule[]> }).validationMetadatas)
    if (target.name) add(target.name, rules);
  // A route's body class: its own rules and those it inherits (extends, OmitType, IntersectionType).
  for (const type of classes) {
    if (!type.name) continue;
    out.delete(type.name);
    add(type.name, storage.getTargetValidationMetadatas(type, '', true, false) as unknown as Rule[]);
  }
  return out;
}

/** A string schema (or a string member of a oneOf) that an identifier's rule applies to. */
function stringSchemas(schema: Schema): Schema[] {
  if (schema.type === 'string') return [schema];
  return ((schema.oneOf ?? []) as Schema[]).filter((member) => member.type === 'string');
}

/** Adds what `rules` refuse to the schema of one property (or of its items, for rules with `each`). */
function constrain(name: string, schema: Schema, rules: readonly Rule[]): void {
  const items = schema.type === 'array' && schema.items && typeof schema.items === 'object' ? (schema.items as Schema) : undefined;
  for (const rule of rules) {
    const target = rule.each && items ? items : schema;
    const [a, b] = (rule.constraints ?? []) as number[];
    switch (rule.name) {
      case 'isLength':
        if (typeof a === 'number' && a > 0) target.minLength = Math.max(a, Number(target.minLength ?? 0));
        if (typeof b === 'number') target.maxLength = Math.min(b, Number(target.maxLength ?? b));
        break;
      case 'minLength':
        target.minLength = a;
        break;
      case 'min':
        if (target.minimum === undefined) target.minimum = a;
        break;
      case 'max':
        if (target.maximum === undefined) target.maximum = a;
        break;
      case 'arrayNotEmpty':
        schema.minItems = Math.max(1, Number(schema.minItems ?? 0));
        break;
      case 'arrayMinSize':
        schema.minItems = a;
        break;
      case 'arrayMaxSize':
        schema.maxItems = a;
        break;
      case 'arrayUnique':
        schema.uniqueItems = true;
        break;
      case 'matches':
        if ((rule.constraints?.[0] as unknown) instanceof RegExp) target.pattern = (rule.constraints![0] as RegExp).source;
        break;
      case 'isEmail':
        (items ?? target).format = 'email';
        break;
      case 'isIp':
      case 'isIP':
        if (target.type === 'string' && !target.anyOf) target.anyOf = [{ format: 'ipv4' }, { format: 'ipv6' }];
        break;
      case 'isUrl':
        // An http(s) URL with a host (a name or an IPv4 address): what isURL with these options takes.
        target.format = 'uri';
        target.pattern =
          '^https?://[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(:[1-9][0-9]{0,3})?(/[A-Za-z0-9._~%-]*)*$';
        break;
    }
  }
  const identifier = items && isIdentifierName(name) ? items : isIdentifierName(name) ? schema : undefined;
  for (const string of identifier ? stringSchemas(identifier) : [])
    if (string.pattern === undefined && string.format === undefined) string.pattern = IDENTIFIER_PATTERN;
}

/** Corrects `document` in place (see above) and returns it; `classes`: the routes' parameter types. */
export function constraintsFromValidation(document: OpenAPIObject, classes: readonly ClassRef[]): OpenAPIObject {
  const rules = rulesOf(classes);
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {}) as [string, Schema][]) {
    const classRules = rules.get(name);
    const properties = schema.properties as Record<string, Schema> | undefined;
    if (!classRules || !properties) continue;
    // The validation pipe refuses a property the class does not declare (unrecognized_property).
    if (schema.additionalProperties === undefined) schema.additionalProperties = false;
    for (const [property, propertySchema] of Object.entries(properties)) {
      const propertyRules = classRules.get(property) ?? [];
      if (propertyRules.some((rule) => MAP_RULES.includes(rule.name ?? rule.type))) continue;
      if (propertySchema.$ref !== undefined || propertySchema.allOf !== undefined) continue;
      constrain(property, propertySchema, propertyRules);
    }
  }
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations as Record<string, { parameters?: { name: string; in: string; schema?: Schema }[] }>)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'path' && parameter.in !== 'query') continue;
        const schema = (parameter.schema ??= { type: 'string' });
        const known = parameter.in === 'query' ? QUERY_SCHEMAS[parameter.name] : undefined;
        if (known && (schema.type === 'string' || schema.type === undefined)) {
          delete schema.type;
          const example = schema.example;
          Object.assign(schema, known);
          if (known.type === 'integer' && typeof example === 'string') schema.example = Number(example);
          continue;
        }
        if (isIdentifierName(parameter.name) && schema.type === 'string' && schema.pattern === undefined && schema.format === undefined && !schema.enum)
          schema.pattern = IDENTIFIER_PATTERN;
      }
    }
  }
  return document;
}
