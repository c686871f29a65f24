import fc from 'fast-check';
import { entityOfEntryId, entryId, EVERY_EVENT, positionAfterEntryId } from './audit-index.js';

describe('audit entry ids', () => {
  it('name the entity and sort like positions within it', () => {
    expect(entryId(EVERY_EVENT, 12n)).toBe('0'.repeat(38) + '12');
    expect(entryId('customer:5', 12n)).toBe(`customer:5@${'0'.repeat(38)}12`);
    expect(entityOfEntryId(entryId('referral_link:A@B', 3n))).toBe('referral_link:A@B');
    expect(entityOfEntryId(entryId(EVERY_EVENT, 3n))).toBe(EVERY_EVENT);
    expect(entryId('customer:5', 9n) < entryId('customer:5', 10n)).toBe(true);
  });

  it("turn a cursor's _id into the position bound that comparing _ids as strings would give", () => {
    expect(positionAfterEntryId('customer:5', entryId('customer:5', 41n))).toBe(41n);
    expect(positionAfterEntryId(EVERY_EVENT, entryId(EVERY_EVENT, 41n))).toBe(41n);
    const near = (s: string) => fc.constantFrom(...s.split(''));
    const idChars = fc.oneof(near('0123456789'), near('0123456789'), near('/:@9az*~ '));
    const entities = fc.constantFrom(EVERY_EVENT, 'customer:5', 'widget:1');
    const ids = fc.tuple(entities, fc.array(idChars, { maxLength: 45 }), fc.boolean()).map(([entity, chars, prefixed]) => {
      const prefix = prefixed && entity !== EVERY_EVENT ? `${entity}@` : '';
      return prefix + chars.join('');
    });
    const positions = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 40n - 1n }), fc.bigInt({ min: 0n, max: 2000n }));
    fc.assert(
      fc.property(entities, ids, positions, (entity, id, q) => {
        expect(entryId(entity, q) > id).toBe(q > positionAfterEntryId(entity, id));
      }),
      { numRuns: 5_000, seed: 20260301 },
    );
    // Ids near real ones: the same prefix, digits mutated or cut.
    fc.assert(
      fc.property(entities, positions, positions, fc.nat(45), fc.string({ maxLength: 3 }), (entity, p, q, cut, tail) => {
        const id = entryId(entity, p).slice(0, entity === EVERY_EVENT ? cut : entity.length + 1 + cut) + tail;
        expect(entryId(entity, q) > id).toBe(q > positionAfterEntryId(entity, id));
      }),
      { numRuns: 5_000, seed: 20260301 },
    );
  });
});
