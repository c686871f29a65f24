/**
 * Building blocks of the OpenAPI document's response schemas (each resource's schema lives next
 * to its presenter, in `*.schemas.ts`). Plain SchemaObjects without `$ref`: a schema says every
 * field its presenter emits, `additionalProperties: false`, and `required` is every field except
 * those a presenter leaves out on purpose (`optional`), so a test that validates real responses
 * against the document (test/e2e/openapi-responses.e2e-spec.ts) notices a field added, dropped or
 * retyped on either side.
 *
 * `nullable: true` is OpenAPI 3.0's null; an enum that may be null lists null among its values.
 */
import type { SchemaObject } from '@nestjs/swagger';

export type { SchemaObject };

/** An object of exactly these properties, each required unless named in `optional`. */
export function object(
  properties: Record<string, SchemaObject>,
  options: { optional?: readonly string[]; description?: string; nullable?: boolean } = {},
): SchemaObject {
  const optional = new Set(options.optional ?? []);
  for (const name of optional) if (!(name in properties)) throw new Error(`optional property ${name} is not a property of the schema`);
  return {
    type: 'object',
    ...(options.nullable ? { nullable: true } : {}),
    ...(options.description ? { description: options.description } : {}),
    properties,
    required: Object.keys(properties).filter((name) => !optional.has(name)),
    additionalProperties: false,
  };
}

/** The same schema, that may also be null. */
export function nullable(schema: SchemaObject, description?: string): SchemaObject {
  return {
    ...schema,
    nullable: true,
    ...(schema.enum ? { enum: [...schema.enum, null] } : {}),
    ...(description ? { description } : {}),
  };
}

export function str(description?: string, extra: SchemaObject = {}): SchemaObject {
  return { type: 'string', ...(description ? { description } : {}), ...extra };
}

export function int(description?: string, extra: SchemaObject = {}): SchemaObject {
  return { type: 'integer', ...(description ? { description } : {}), ...extra };
}

export function num(description?: string): SchemaObject {
  return { type: 'number', ...(description ? { description } : {}) };
}

export function bool(description?: string): SchemaObject {
  return { type: 'boolean', ...(description ? { description } : {}) };
}

export function oneOfStrings(values: readonly string[], description?: string): SchemaObject {
  return { type: 'string', enum: [...values], ...(description ? { description } : {}) };
}

export function arrayOf(items: SchemaObject, description?: string): SchemaObject {
  return { type: 'array', items, ...(description ? { description } : {}) };
}

/** ISO 8601 UTC with milliseconds (docs/api-decisions.md, "Ids and timestamps"). */
export function dateTime(description?: string): SchemaObject {
  return { type: 'string', format: 'date-time', ...(description ? { description } : {}) };
}

/** An absolute URL of another resource of the API (v2 links, v1 `detail_uri` and `*_uri`). */
export function apiLink(description: string): SchemaObject {
  return { type: 'string', format: 'uri', description };
}

/** Link parameters as the API returns them: the flat JSON object, encoded as a string (spec §2.2, §2.3). */
export const LINK_PARAMETERS: SchemaObject = nullable(str('Link parameters as a JSON-encoded string (a flat object); null when none are set'));

/** Spec §2.1 v2 form 1: a single entity, wrapped in an object keyed by the entity's name. */
export function wrapped(name: string, schema: SchemaObject): SchemaObject {
  return object({ [name]: schema });
}

/** Spec §2.1 v2 form 2: a list page. */
export function listPage(item: SchemaObject): SchemaObject {
  return object({
    next_page: nullable(str('URL of the next page (it carries a `cursor` query value); null on the last page', { format: 'uri' })),
    results_count: int('Number of results on this page', { minimum: 0 }),
    results: arrayOf(item),
  });
}

/** Spec §2.1 v1 paginated search (`SearchResults`). */
export function searchResults(item: SchemaObject): SchemaObject {
  return object({
    offset: int('Zero-based index of the first result of this page within all results', { minimum: 0 }),
    this_page_results_count: int('Number of results on this page', { minimum: 0 }),
    total_results_count: int('Total number of results across all pages', { minimum: 0 }),
    results: arrayOf(item),
  });
}

/** Spec §2.3 Confirmation (`DELETE /v2/tokens/merchant`, `DELETE …/email_opt_outs/{email_address}`). */
export const CONFIRMATION: SchemaObject = object({ success: { type: 'boolean', enum: [true] } });
