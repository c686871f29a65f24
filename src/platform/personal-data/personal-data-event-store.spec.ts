/** The personal-data layer's caches: a read opens every value, however full they are. */
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { PersonalDataEventStore } from './personal-data-event-store.js';
import { emailSubject, fieldsOf, PersonalDataMap } from './personal-fields.js';
import { SqliteKeyStore } from './sqlite-key-store.js';

type Data = { email?: string; other?: string };
const personal: PersonalDataMap = {
  T: (data: Data) => [...fieldsOf(data, ['email'], emailSubject(1, data.email)), ...fieldsOf(data, ['other'], emailSubject(1, data.other))],
};

describe('the personal-data layer', () => {
  it('opens an event whose key it held when the same read fills its key cache past its limit', async () => {
    const store = await PersonalDataEventStore.open(new SqliteEventStore({ path: ':memory:' }), new SqliteKeyStore(':memory:'), personal);
    try {
      await store.append('x', [{ type: 'T', data: { email: 'ann@example.com', other: 'bob@example.com' } }], 'no_stream');
      await store.append('z', [{ type: 'T', data: { email: 'Ann@Example.com' } }], 'no_stream');
      const many = Array.from({ length: 10_000 }, (_, i) => ({ type: 'T', data: { email: `friend-${i}@example.org` } }));
      await store.append('many', many, 'no_stream');
      // Nothing cached; then ann's key only (through z, whose value differs from x's).
      await store.erase([]);
      expect((await store.readStream('z'))[0].data).toEqual({ email: 'Ann@Example.com' });
      // x needs ann's key (held) and bob's (missing), with 10,000 more missing: the key cache is cleared on the way.
      const all = await store.readAll({ maxCount: 20_000 });
      expect(all[0].data).toEqual({ email: 'ann@example.com', other: 'bob@example.com' });
      expect(all.slice(2).every((event, i) => (event.data as Data).email === `friend-${i}@example.org`)).toBe(true);
    } finally {
      await store.close();
    }
  });
});
