/**
 * Every read model takes every event whose personal values were erased (null where they were):
 * a replay after an erasure (a restart, a rebuild, a point-in-time read) must not stop on one.
 */
import { SqliteEventStore } from '../platform/event-store/sqlite-event-store.js';
import { PersonalDataEventStore, SqliteKeyStore, Subject } from '../platform/personal-data/index.js';
import { replay } from '../platform/projections/projection-runner.js';
import { MemoryReadStore } from '../platform/read-store/memory-read-store.js';
import { allProjections } from '../projections.js';
import { SAMPLES } from '../../test/support/personal-data-samples.js';
import { servicePersonalData } from './personal-data.js';

async function logOfEverySample(): Promise<PersonalDataEventStore> {
  const store = await PersonalDataEventStore.open(new SqliteEventStore({ path: ':memory:' }), new SqliteKeyStore(':memory:'), servicePersonalData);
  let n = 0;
  for (const sample of SAMPLES) await store.append(`sample-${(n += 1)}`, [{ type: sample.type, data: sample.data, metadata: { merchantId: 1 } }], 'no_stream');
  return store;
}

/** Every subject any sample's values are sealed under. */
function everySubject(): Subject[] {
  return SAMPLES.flatMap((sample) => servicePersonalData[sample.type](sample.data as never).flatMap((value) => value.subjects));
}

describe('events with erased personal values', () => {
  it('are read with null wherever a personal value was', async () => {
    const store = await logOfEverySample();
    try {
      expect(await store.erase(everySubject())).toBeGreaterThan(10);
      const text = JSON.stringify((await store.readAll()).map((event) => event.data));
      for (const sample of SAMPLES) for (const value of sample.personal) expect([sample.type, text.includes(value)]).toEqual([sample.type, false]);
    } finally {
      await store.close();
    }
  });

  it('are applied by every projection, as before the erasure', async () => {
    const store = await logOfEverySample();
    try {
      const before = await replay(store, new MemoryReadStore(), allProjections);
      await store.erase(everySubject());
      const after = await replay(store, new MemoryReadStore(), allProjections);
      expect(after.events).toBe(before.events);
    } finally {
      await store.close();
    }
  });
});
