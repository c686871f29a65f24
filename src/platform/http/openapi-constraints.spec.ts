import type { OpenAPIObject } from '@nestjs/swagger';
import { ArrayMinSize, IsArray, IsInt, IsIP, IsObject, IsOptional, IsString, Length, Matches, Min } from 'class-validator';
import { constraintsFromValidation, IDENTIFIER_PATTERN } from './openapi-constraints.js';
import { SPOOFING_CHARACTER } from './validators.js';

class ConstraintsBaseDto {
  @IsString()
  @Length(1, 64)
  order_id!: string;
}

class ConstraintsSampleDto extends ConstraintsBaseDto {
  @IsArray()
  @ArrayMinSize(1)
  @IsString({ each: true })
  @Length(1, 100, { each: true })
  codes!: string[];

  @IsInt()
  @Min(0)
  quantity!: number;

  @IsOptional()
  @IsIP()
  ip_address?: string;

  @IsString()
  @Matches(/^[a-z]{3}$/)
  slug!: string;

  @IsOptional()
  @IsObject()
  link_parameters?: Record<string, string>;
}

function document(): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/v1/things/{id}': {
        get: {
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'string', example: '20' } as never },
            { name: 'from', in: 'query', required: false },
            { name: 'campaign_id', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['a'] } },
          ],
          responses: {},
        },
      },
    },
    components: {
      schemas: {
        ConstraintsSampleDto: {
          type: 'object',
          properties: {
            order_id: { type: 'string' },
            codes: { type: 'array', items: { type: 'string' } },
            quantity: { type: 'integer' },
            ip_address: { type: 'string' },
            slug: { type: 'string' },
            link_parameters: { type: 'object' },
          },
        },
      },
    },
  } as OpenAPIObject;
}

describe('constraintsFromValidation', () => {
  const doc = constraintsFromValidation(document(), [ConstraintsSampleDto]);
  const sample = doc.components!.schemas!.ConstraintsSampleDto as Record<string, any>;
  const parameters = (doc.paths['/v1/things/{id}'].get!.parameters as unknown as { name: string; schema: Record<string, unknown> }[]).reduce<
    Record<string, Record<string, unknown>>
  >((all, p) => ({ ...all, [p.name]: p.schema }), {});

  it('closes a body schema and gives the rules of its own and inherited properties', () => {
    expect(sample.additionalProperties).toBe(false);
    expect(sample.properties.order_id).toMatchObject({ minLength: 1, maxLength: 64, pattern: IDENTIFIER_PATTERN });
    expect(sample.properties.codes).toMatchObject({ minItems: 1, items: { minLength: 1, maxLength: 100, pattern: IDENTIFIER_PATTERN } });
    expect(sample.properties.quantity.minimum).toBe(0);
    expect(sample.properties.ip_address.anyOf).toEqual([{ format: 'ipv4' }, { format: 'ipv6' }]);
    expect(sample.properties.slug.pattern).toBe('^[a-z]{3}$');
    // A free-form map is left as it was.
    expect(sample.properties.link_parameters).toEqual({ type: 'object' });
  });

  it('types the parameters the paging and id filters read by name, and marks identifiers', () => {
    expect(parameters.limit).toEqual({ type: 'integer', minimum: 1, maximum: 100, example: 20 });
    expect(parameters.from).toMatchObject({ type: 'string', format: 'date' });
    expect(parameters.campaign_id).toMatchObject({ type: 'integer', minimum: 1 });
    expect(parameters.id).toEqual({ type: 'string', pattern: IDENTIFIER_PATTERN });
    expect(parameters.status).toEqual({ type: 'string', enum: ['a'] });
  });

  it('excludes exactly the characters the validation refuses from identifiers', () => {
    const identifier = new RegExp(IDENTIFIER_PATTERN);
    for (const code of [0, 9, 10, 13, 0x1f, 0x7f, 0x85, 0x9f, 0x61c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069]) {
      const text = `a${String.fromCharCode(code)}b`;
      expect({ code, documented: identifier.test(text) }).toEqual({ code, documented: !SPOOFING_CHARACTER.test(text) });
    }
    expect(identifier.test('ORD-1001 é ✓')).toBe(true);
  });
});
