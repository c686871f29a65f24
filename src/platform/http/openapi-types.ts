/**
 * Property types of the OpenAPI document's request schemas, from the rules that validate them.
 *
 * @nestjs/swagger takes a property's type from TypeScript's reflected design type, which is
 * `Object` for every union (`number | string` ids, `string | null` names): the document said
 * "object" for 30 body properties that must be integers or strings, and "number" for integers, so
 * a client generated from it could not send a valid id, name or amount. class-validator's own
 * metadata says what each property takes; this fills in the schema's type where the document's
 * is wrong (`object` for a property no object rule checks, `number` for an integer rule), and
 * leaves every other schema as @nestjs/swagger wrote it.
 */
import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import type { ClassRef } from './validators.js';

type Schema = Record<string, unknown>;

interface Rule {
  propertyName: string;
  name?: string;
  type: string;
}

/**
 * The validation rules of each class's properties, by class name (the schema's name) and
 * property: the rules each class declares, and for `classes` (the routes' bodies) also those
 * they inherit (`extends`, or a mapped type such as OmitType, which declares them on a class of
 * its own).
 */
function rulesByClass(classes: readonly ClassRef[]): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>();
  const add = (name: string, rules: readonly Rule[]) => {
    const properties = out.get(name) ?? new Map<string, Set<string>>();
    for (const m of rules) {
      const set = properties.get(m.propertyName) ?? new Set<string>();
      set.add(m.name ?? m.type);
      properties.set(m.propertyName, set);
    }
    out.set(name, properties);
  };
  const storage = getMetadataStorage();
  for (const [target, rules] of (storage as unknown as { validationMetadatas: Map<ClassRef, Rule[]> }).validationMetadatas) {
    if (target.name) add(target.name, rules);
  }
  for (const type of classes) if (type.name) add(type.name, storage.getTargetValidationMetadatas(type, '', true, false) as unknown as Rule[]);
  return out;
}

/** What a property's rules make of it, when they say; undefined when the document's type stands. */
function typeOf(rules: Set<string>, current: unknown): Schema | undefined {
  // An object, an array or a nested DTO: the document's own schema for it is right.
  if (['isObject', 'isKeyValueMap', 'nestedValidation', 'isArray', 'isLinkParameters'].some((rule) => rules.has(rule))) return undefined;
  if (rules.has('isIdType'))
    return {
      oneOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', pattern: '^[1-9][0-9]{0,15}$' },
      ],
    };
  if (rules.has('isInt')) return { type: 'integer' };
  if (current !== 'object') return undefined;
  if (rules.has('isBoolean')) return { type: 'boolean' };
  if (rules.has('isNumber')) return { type: 'number' };
  if (rules.has('isString') || rules.has('isEmail') || rules.has('isUrl') || rules.has('isHttpUrl') || rules.has('isIn')) return { type: 'string' };
  return undefined;
}

/** Corrects `document`'s request schemas in place (see above) and returns it; `classes`: the routes' parameter types. */
export function typesFromValidation(document: OpenAPIObject, classes: readonly ClassRef[]): OpenAPIObject {
  const rules = rulesByClass(classes);
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    const properties = (schema as Schema).properties as Record<string, Schema> | undefined;
    const classRules = rules.get(name);
    if (!properties || !classRules) continue;
    for (const [property, propertySchema] of Object.entries(properties)) {
      const propertyRules = classRules.get(property);
      if (!propertyRules || propertySchema.$ref !== undefined || propertySchema.allOf !== undefined) continue;
      const fixed = typeOf(propertyRules, propertySchema.type);
      if (!fixed) continue;
      if (fixed.oneOf) delete propertySchema.type;
      Object.assign(propertySchema, fixed);
    }
  }
  return document;
}

/** The classes of the application's route parameters (bodies and queries), from the controllers' reflected parameter types. */
export function routeParameterTypes(app: INestApplication): ClassRef[] {
  const out = new Set<ClassRef>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const prototype = (wrapper.metatype as ClassRef | null | undefined)?.prototype as object | undefined;
      if (!prototype) continue;
      for (const method of Object.getOwnPropertyNames(prototype)) {
        const types = Reflect.getMetadata('design:paramtypes', prototype, method) as unknown[] | undefined;
        for (const type of types ?? []) if (typeof type === 'function' && type.name) out.add(type as ClassRef);
      }
    }
  }
  return [...out];
}
