/**
 * Every read model takes every event whose personal values were erased (null where they were):
 * a replay after an erasure (a restart, a rebuild, a point-in-time read) must not stop on one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../platform/event-store/sqlite-event-store.js';
import { TRANSFORMED_ON_THREAD } from '../platform/event-store/sqlite-reader.js';
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
  it("read the same on the embedded store's reader thread as on the main thread", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'referral-read-ahead-'));
    const path = join(dir, 'events.sqlite');
    const store = await PersonalDataEventStore.open(new SqliteEventStore({ path, readAheadFrom: 0 }), new SqliteKeyStore(`${path}-keys`), servicePersonalData);
    try {
      let n = 0;
      for (const sample of SAMPLES)
        await store.append(`sample-${(n += 1)}`, [{ type: sample.type, data: sample.data, metadata: { merchantId: 1 } }], 'no_stream');
      // Values that look like sealed ones, in an event without personal values and in one with.
      // Only an object made of the mark alone, holding an envelope's characters, is taken for one.
      const lookalike = {
        note: '{"$pd":"a:b"}',
        nested: { $pd: 1, list: ['{"$pd":"x"}'] },
        objects: [{ $pd: 'abc', more: 'x"}' }, { $pd: 'a\\"}' }, { $pd: 'a b' }],
      };
      await store.append('lookalike', [{ type: 'NotPersonal', data: lookalike, metadata: { merchantId: 1 } }], 'no_stream');
      const purchase = SAMPLES.find((sample) => sample.type === 'PurchaseRecorded')!.data;
      const marked = { ...purchase, custom: [{ $pd: 'no:such#0' }, ...lookalike.objects] };
      await store.append('lookalike-marked', [{ type: 'PurchaseRecorded', data: marked, metadata: { merchantId: 1 } }], 'no_stream');
      const readBoth = async () => {
        const batches: { data: unknown }[][] = [];
        for await (const batch of store.readBatches!({ after: 0n, until: await store.headPosition(), maxCount: 7 })) batches.push(batch);
        expect(batches.every((batch) => TRANSFORMED_ON_THREAD in batch)).toBe(true);
        return { thread: batches.flat().map((event) => event.data), main: (await store.readAll({ maxCount: 1000 })).map((event) => event.data) };
      };

      const before = await readBoth();
      expect(before.thread).toEqual([...SAMPLES.map((sample) => sample.data), lookalike, { ...marked, custom: [null, ...lookalike.objects] }]);
      expect(before.thread).toEqual(before.main);

      // Half the samples' subjects erased: their values read null on both threads, the others' do not.
      await store.erase(
        SAMPLES.filter((_, i) => i % 2 === 0).flatMap((sample) => servicePersonalData[sample.type](sample.data as never).flatMap((value) => value.subjects)),
      );
      const after = await readBoth();
      expect(after.thread).toEqual(after.main);
      expect(after.thread).not.toEqual(before.thread);
      expect(JSON.stringify(after.thread.slice(0, SAMPLES.length))).not.toContain('"$pd":"');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

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
