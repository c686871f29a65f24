/**
 * What the MongoDB adapter does without a server: the stored form of documents whose nested
 * objects have keys BSON cannot hold, checked with the driver's own BSON serializer, and the
 * escaping of prefix patterns. The adapter's queries are covered by the read-store contract
 * (test/contract/read-store.contract-spec.ts), which needs MONGO_URL.
 */
import { BSON, MongoNetworkError, MongoNotConnectedError } from 'mongodb';
import { toErrorResponse } from '../http/exception.filter.js';
import { escapeRegex, restored, storable, unavailableOr } from './mongo-read-store.js';

describe('MongoDB read store without a server', () => {
  const awkward = { _bsontype: 'x', 'a\u0000b': 1, $set: true, 'a.b': 'dot', '\u0001pairs': [1], nested: { _bsontype: 'y', list: [{ $k: 1 }] } };

  it('stores objects whose keys BSON refuses as their pairs, and reads them back as they were', () => {
    // The premise: the serializer refuses these as they are (a document that could not be stored stopped every projection).
    expect(() => BSON.serialize({ params: awkward })).toThrow();
    const stored = { params: storable(awkward) };
    const bytes = BSON.serialize(stored);
    expect(restored(BSON.deserialize(bytes).params)).toEqual(awkward);
  });

  it('stores the pairs with no array directly inside an array (FerretDB refuses nested arrays), and still reads pairs stored as arrays', () => {
    const nestedArray = (value: unknown, inArray = false): boolean =>
      Array.isArray(value)
        ? inArray || value.some((item) => nestedArray(item, true))
        : value !== null && typeof value === 'object' && Object.values(value).some((item) => nestedArray(item));
    expect(nestedArray({ params: storable(awkward) })).toBe(false);
    const grids = { grid: [[1, [2, []]], []], '\u0001array': [[0]], pairs: { '\u0001pairs': [['k', 'v']] } };
    const stored = storable(grids);
    expect(nestedArray(stored)).toBe(false);
    expect(restored(BSON.deserialize(BSON.serialize({ stored })).stored)).toEqual(grids);
    const earlier = {
      '\u0001pairs': [
        ['$set', true],
        ['nested', { '\u0001pairs': [['a.b', [1]]] }],
      ],
    };
    expect(restored(earlier)).toEqual({ $set: true, nested: { 'a.b': [1] } });
  });

  it('stores an ordinary object as it is, so documents written before read as they were', () => {
    const ordinary = { utm_source: 'news', n: 1, list: [{ sku: 'a' }], deep: { x: null } };
    expect(storable(ordinary)).toBe(ordinary);
    expect(restored(ordinary)).toBe(ordinary);
    // Copied where it changes, never changed in place (documents are shared with the caller).
    const holder = { keep: ordinary, odd: { _bsontype: 'z' } };
    const stored = storable(holder) as typeof holder;
    expect(stored).not.toBe(holder);
    expect(stored.keep).toBe(ordinary);
    expect(holder.odd).toEqual({ _bsontype: 'z' });
  });

  it('answers 503 with Retry-After when the server cannot be reached, and leaves other errors alone', () => {
    for (const cause of [new MongoNetworkError('connection 3 to 10.0.0.9:27017 closed'), new MongoNotConnectedError('client closed')]) {
      expect(toErrorResponse(unavailableOr(cause))).toEqual({
        status: 503,
        errors: ['the read store cannot be reached; retry shortly'],
        headers: { 'retry-after': '5' },
      });
    }
    const other = new Error('E11000 duplicate key');
    expect(unavailableOr(other)).toBe(other);
  });

  it('escapes a prefix into a pattern that matches it literally and holds no NUL', () => {
    for (const text of ['a.b', 'x*+?^${}()|[]\\y', 'n\u0000ul', '(']) {
      const pattern = `^${escapeRegex(text)}`;
      expect(pattern.includes('\u0000')).toBe(false);
      expect(new RegExp(pattern).test(`${text}tail`)).toBe(true);
      expect(new RegExp(pattern).test(`z${text}`)).toBe(false);
    }
    expect(new RegExp(`^${escapeRegex('a.b')}`).test('axb')).toBe(false);
  });
});
