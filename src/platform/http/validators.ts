/** class-validator rules the API shares. */
import { Transform } from 'class-transformer';
import { isEmail, IsNumber, ValidateBy, ValidationOptions } from 'class-validator';

/** A class, as class-validator keys its rules: a DTO or a route parameter's type. */
export type ClassRef = abstract new (...args: never[]) => unknown;

/** Decimal places money takes: ten-thousandths of a currency unit. */
export const MONEY_DECIMAL_PLACES = 4;

/**
 * The largest amount a widget's reward settings take (reward_amount, minimum_purchase_amount,
 * max_reward_amount_per_advocate). Amounts are added up for the caps in ten-thousandths: below
 * this bound each one is a whole number of them that a double holds exactly (10^13 < 2^53).
 */
export const MAX_REWARD_MONEY = 1_000_000_000;

/**
 * Decimal places of the shortest decimal that reads back as `value` (what a client wrote, as
 * long as it wrote no more than 17 significant digits): 0.1234 has 4, 6e-7 has 7, 1.5e-7 has 8,
 * 1e21 has none. class-validator's maxDecimalPlaces counts the digits after a "." of
 * String(value), so it threw on 6e-7 (a 500) and took 1.5e-7 as 1 place.
 */
export function decimalPlaces(value: number): number {
  if (!Number.isFinite(value) || Number.isInteger(value)) return 0;
  const [mantissa, exponent = '0'] = String(value).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}

/**
 * A finite JSON number of at most 4 decimal places (docs/api-decisions.md). Another JSON type is a
 * wrong_type fault, a number with more places an invalid one (validation.ts); ranges are the
 * DTO's own Min and Max.
 */
export function IsMoney(options?: ValidationOptions): PropertyDecorator {
  const type = IsNumber({ allowNaN: false, allowInfinity: false }, options);
  const places = ValidateBy(
    {
      name: 'isMoney',
      validator: {
        validate: (value: unknown) => typeof value === 'number' && decimalPlaces(value) <= MONEY_DECIMAL_PLACES,
        defaultMessage: (args) => `${args?.property} must have at most ${MONEY_DECIMAL_PLACES} decimal places`,
      },
    },
    options,
  );
  return (target, property) => {
    type(target, property);
    places(target, property);
  };
}

/**
 * An internal id: a positive integer, or the same digits as a string (the spec's sample
 * payloads show ids as strings, so clients copy them that way).
 */
export function IsIdValue(options?: ValidationOptions): PropertyDecorator {
  const type = ValidateBy(
    {
      // A JSON type other than number or string is a wrong_type fault (validation.ts), not a bad value.
      name: 'isIdType',
      validator: {
        validate: (value: unknown) => typeof value === 'number' || typeof value === 'string',
        defaultMessage: (args) => `${args?.property} must be a number or a string of digits`,
      },
    },
    options,
  );
  const range = ValidateBy(
    {
      name: 'isIdValue',
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) ||
          // 16 digits reach past 2^53, where two ids would read as one number.
          (typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) && Number.isSafeInteger(Number(value))),
        defaultMessage: (args) => `${args?.property} must be a positive integer id`,
      },
    },
    options,
  );
  return (target, property) => {
    type(target, property);
    range(target, property);
  };
}

/** The name of IsKeyValueMap's rule, by which validation.ts knows a free-form map. */
export const KEY_VALUE_MAP = 'isKeyValueMap';

/**
 * Where StrictValidationPipe puts a body's free-form maps, as sent, while class-transformer builds
 * the DTO from the rest: class-transformer skips a key an object inherits (`toString`, `valueOf`)
 * and Nest's pipe deletes `constructor` and `prototype` keys at any depth, so a map that went
 * through them would lose those keys (validation.ts).
 */
export const DETACHED_MAPS = Symbol('free-form maps as sent');

/**
 * A JSON object whose keys are data, not properties (spec §4.2: "any key-value pair may be set"):
 * link parameters, custom header names. Any key is taken, `toString` and `constructor` included
 * (the JSON parser refuses `__proto__` and `constructor.prototype` everywhere), and the map reaches
 * the handler as it was sent.
 */
export function IsKeyValueMap(options?: ValidationOptions): PropertyDecorator {
  // Another JSON type (a string, an array) is a wrong_type fault (validation.ts), as for the other properties.
  const type = ValidateBy(
    {
      name: KEY_VALUE_MAP,
      validator: {
        validate: (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value),
        defaultMessage: (args) => `${args?.property} must be a JSON object`,
      },
    },
    options,
  );
  const asSent = Transform(({ key, obj, value }) => (obj as { [DETACHED_MAPS]?: Map<string, unknown> })[DETACHED_MAPS]?.get(key) ?? value, {
    toClassOnly: true,
  });
  return (target, property) => {
    type(target, property);
    asSent(target, property as string);
  };
}

/** A JSON object of link parameters: string keys, scalar values. */
export function IsLinkParameters(options?: ValidationOptions): PropertyDecorator {
  const type = IsKeyValueMap(options);
  const content = ValidateBy(
    {
      name: 'isLinkParameters',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= 50 &&
          Object.entries(value).every(
            // A number JSON cannot hold (1e400 parses as Infinity) would be stored as null.
            ([k, v]) =>
              k.length > 0 &&
              k.length <= 100 &&
              (typeof v === 'string' ? v.length <= 1000 : (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean'),
          ),
        defaultMessage: (args) => `${args?.property} must be a JSON object of at most 50 string keys with string, finite number or boolean values`,
      },
    },
    options,
  );
  return (target, property) => {
    type(target, property);
    content(target, property);
  };
}

/** Where EachElement keeps its element check, in the rule's context, for validation.ts to read. */
export const ELEMENT_FAULT = 'elementFault';

/** Element reports a list's fault gives at most; the rest are counted in one report on the list. */
export const MAX_ELEMENT_REPORTS = 20;

/**
 * A rule on each element of an array whose faults are reported per element (`codes.3`, with the
 * element's index), not once for the list: with 10,000 values, "each value in … must be an email"
 * leaves the client to find the bad one. `fault` gives the end of the message ("must be an email")
 * or null; an element of the wrong type is left to the type rule (EachIsString).
 * validation.ts expands the fault into reports, at most MAX_ELEMENT_REPORTS and a count of the rest,
 * each with the code of the rule's name (`wrong_type` for a type rule, else `invalid`).
 */
export function EachElement(name: string, fault: (element: unknown) => string | null, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name,
      validator: {
        validate: (value: unknown) => !Array.isArray(value) || value.every((element) => fault(element) === null),
        defaultMessage: (args) => `${args?.property} holds values that are not valid`,
      },
    },
    { ...options, context: { ...options?.context, [ELEMENT_FAULT]: fault } },
  );
}

/**
 * C0 controls (NUL, TAB, LF, CR, ESC…), DEL, the C1 controls, and the bidirectional formatting
 * characters (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), which reorder what a
 * dashboard or an email shows: `abc\u202Etxt.exe` reads as `abcexe.txt`.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
export const SPOOFING_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Properties and path parameters that hold an id, a code, a SKU or an email address: they take no SPOOFING_CHARACTER. */
const IDENTIFIER_NAME = /(^|_)(ids?|codes?|skus?|emails?|email_address(es)?|recipients)$/;

export function isIdentifierName(name: string): boolean {
  return IDENTIFIER_NAME.test(name);
}

const OWN_CHARACTER_RULE = new WeakMap<object, Set<string>>();

/**
 * Marks an identifier property whose own rule already refuses control and formatting characters,
 * after trimming what it trims (coupon codes): the shared rule leaves it to that one.
 */
export function HasOwnCharacterRule(): PropertyDecorator {
  return (target, property) => {
    const names = OWN_CHARACTER_RULE.get(target.constructor) ?? new Set<string>();
    names.add(String(property));
    OWN_CHARACTER_RULE.set(target.constructor, names);
  };
}

/** Whether `dto`'s property (or an inherited one) is marked with HasOwnCharacterRule. */
export function hasOwnCharacterRule(dto: ClassRef, property: string): boolean {
  for (let type: ClassRef | null = dto; type && type !== Object; type = Object.getPrototypeOf(type)) {
    if (OWN_CHARACTER_RULE.get(type)?.has(property)) return true;
  }
  return false;
}

/** The report of an identifier holding a SPOOFING_CHARACTER. */
export function spoofingFault(property: string): { property: string; code: string; message: string } {
  return {
    property,
    code: 'invalid',
    message: `${property} must not contain control characters (NUL, CR, LF…) or bidirectional formatting characters (U+202E…)`,
  };
}

/**
 * Why `address` is not an email address the service takes, or null: class-validator's isEmail,
 * and no control character. isEmail takes a quoted local part holding DEL or any C0 control but NUL
 * (`"r\r\nBcc: x@evil.test"@example.com`), which SMTP cannot carry (RFC 5321's quoted strings
 * hold printable characters only): the address was stored and its emails reached no one
 * (nodemailer makes CR and LF spaces, and the server refuses the address).
 */
export function emailFault(address: string): string | null {
  if (!isEmail(address)) return 'must be an email';
  if (SPOOFING_CHARACTER.test(address))
    return 'must be an email without control characters (CR, LF, NUL, tab…) or bidirectional formatting characters (U+202E…)';
  return null;
}

/**
 * An email address (emailFault): every property that takes one uses this instead of class-validator's
 * IsEmail. Named as IsEmail's rule, which openapi-types.ts reads as a string.
 */
export function IsEmailAddress(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEmail',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && emailFault(value) === null,
        defaultMessage: (args) => `${args?.property} ${typeof args?.value === 'string' ? (emailFault(args.value) ?? 'must be an email') : 'must be an email'}`,
      },
    },
    options,
  );
}

/** Each element an email address (emailFault), each bad one reported with its index. */
export function EachIsEmail(options?: ValidationOptions): PropertyDecorator {
  return EachElement('isEachEmail', (element) => (typeof element === 'string' ? emailFault(element) : null), options);
}

/** The name of EachIsString's rule, a type rule (validation.ts reports its faults as `wrong_type`). */
export const EACH_STRING = 'isEachString';

/**
 * Each element a string, each other one reported with its index (`email_addresses.7 must be a
 * string`, `wrong_type`), as the bad values of the list's other rules are.
 */
export function EachIsString(options?: ValidationOptions): PropertyDecorator {
  return EachElement(EACH_STRING, (element) => (typeof element === 'string' ? null : 'must be a string'), options);
}

/**
 * Each element one of `values`, each other string reported with its index (`events.1 must be one
 * of …`); an element of another type is left to EachIsString, so it gets the one wrong_type report.
 * Named as IsIn's rule, which openapi-types.ts reads as a string.
 */
export function EachIsIn(values: readonly string[], options?: ValidationOptions): PropertyDecorator {
  const allowed = new Set<unknown>(values);
  const message = `must be one of the following values: ${values.join(', ')}`;
  return EachElement('isIn', (element) => (typeof element !== 'string' || allowed.has(element) ? null : message), options);
}
