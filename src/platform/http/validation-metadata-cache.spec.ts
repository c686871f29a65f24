import { IsInt, IsString, validateSync } from 'class-validator';
import { memoiseValidationMetadata } from './validation-metadata-cache.js';

class Base {
  @IsString()
  name!: unknown;
}

class Derived extends Base {
  @IsInt()
  count!: unknown;
}

const failing = (object: object) =>
  validateSync(object, { forbidUnknownValues: true })
    .map((e) => e.property)
    .sort();

describe('memoised class-validator metadata', () => {
  beforeAll(() => memoiseValidationMetadata());

  it('finds the same rules, inherited ones included, on every call', () => {
    const bad = Object.assign(new Derived(), { name: 5, count: 'x' });
    expect(failing(bad)).toEqual(['count', 'name']);
    expect(failing(bad)).toEqual(['count', 'name']);
    expect(failing(Object.assign(new Derived(), { name: 'a', count: 1 }))).toEqual([]);
    expect(failing(Object.assign(new Base(), { name: 5 }))).toEqual(['name']);
  });

  it('sees a rule added after a class was first validated', () => {
    class Late {
      @IsString()
      a!: unknown;
      b!: unknown;
    }
    const late = Object.assign(new Late(), { a: 'ok', b: 'not a number' });
    expect(failing(late)).toEqual([]);
    IsInt()(Late.prototype, 'b');
    expect(failing(late)).toEqual(['b']);
  });
});
