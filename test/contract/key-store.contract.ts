/** What every KeyStore adapter must do (src/platform/personal-data/key-store.ts). */
import { KeyStore } from '../../src/platform/personal-data/key-store.js';

export interface KeyStoreFixture {
  /** Opens the store; a second call opens the same storage again (as after a restart). */
  open(): Promise<KeyStore>;
  dispose(): Promise<void>;
}

export function keyStoreContract(name: string, setUp: () => Promise<KeyStoreFixture>): void {
  describe(`KeyStore contract: ${name}`, () => {
    let fixture: KeyStoreFixture;
    let store: KeyStore;

    beforeEach(async () => {
      fixture = await setUp();
      store = await fixture.open();
    });

    afterEach(async () => {
      await store.close();
      await fixture.dispose();
    });

    it('makes one 32-byte key per subject, and gives the same one again', async () => {
      const first = await store.keysFor(['a', 'b', 'a']);
      expect([...first.keys()].sort()).toEqual(['a', 'b']);
      expect(first.get('a')!.key).toHaveLength(32);
      expect(first.get('a')!.id).not.toBe(first.get('b')!.id);
      expect(first.get('a')!.key.equals(first.get('b')!.key)).toBe(false);
      const again = await store.keysFor(['a']);
      expect(again.get('a')!.id).toBe(first.get('a')!.id);
      expect(again.get('a')!.key.equals(first.get('a')!.key)).toBe(true);
    });

    it('gives one key to callers asking at once for a new subject', async () => {
      const answers = await Promise.all([1, 2, 3, 4].map(() => store.keysFor(['racing'])));
      expect(new Set(answers.map((a) => a.get('racing')!.id)).size).toBe(1);
    });

    it('gives every one of many callers asking at once for new subjects a key of its own, the one it keeps', async () => {
      // Each caller asks for a subject of its own and one it shares with the others.
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => store.keysFor([`own-${i}`, 'shared'])));
      const own = answers.map((answer, i) => answer.get(`own-${i}`)!);
      expect(new Set(own.map((k) => k.id)).size).toBe(200);
      expect(new Set(answers.map((answer) => answer.get('shared')!.id)).size).toBe(1);
      const found = await store.keysById(own.map((k) => k.id));
      expect(own.every((k) => found.get(k.id)?.equals(k.key))).toBe(true);
      expect((await store.keysFor(['own-7'])).get('own-7')!.id).toBe(own[7].id);
    });

    it('gives two stores on the same storage, asking at once for new subjects, the same keys', async () => {
      const other = await fixture.open();
      try {
        const subjects = Array.from({ length: 20 }, (_, i) => `both-${i}`);
        const [mine, theirs] = await Promise.all([store.keysFor(subjects), other.keysFor(subjects)]);
        for (const subject of subjects) {
          expect(theirs.get(subject)!.id).toBe(mine.get(subject)!.id);
          expect(theirs.get(subject)!.key.equals(mine.get(subject)!.key)).toBe(true);
        }
        // A key one store made, the other finds.
        const made = (await store.keysFor(['made-here'])).get('made-here')!;
        expect((await other.keysFor(['made-here'])).get('made-here')!.id).toBe(made.id);
        expect((await other.keysById([made.id])).get(made.id)!.equals(made.key)).toBe(true);
      } finally {
        await other.close();
      }
    });

    it('finds keys by id, and leaves out unknown ids', async () => {
      const made = await store.keysFor(['a', 'b']);
      const found = await store.keysById([made.get('a')!.id, 'no-such-id', made.get('b')!.id]);
      expect([...found.keys()].sort()).toEqual([made.get('a')!.id, made.get('b')!.id].sort());
      expect(found.get(made.get('b')!.id)!.equals(made.get('b')!.key)).toBe(true);
    });

    it('destroys keys for good: gone by id, counted once, and a new key for a subject asked again', async () => {
      const made = await store.keysFor(['a', 'b']);
      expect(await store.destroy(['a', 'unknown'])).toBe(1);
      expect(await store.destroy(['a'])).toBe(0);
      const found = await store.keysById([made.get('a')!.id, made.get('b')!.id]);
      expect([...found.keys()]).toEqual([made.get('b')!.id]);
      const again = await store.keysFor(['a']);
      expect(again.get('a')!.id).not.toBe(made.get('a')!.id);
      expect(again.get('a')!.key.equals(made.get('a')!.key)).toBe(false);
    });

    it('keeps keys, destructions and its secret across a restart', async () => {
      const made = await store.keysFor(['kept', 'gone']);
      await store.destroy(['gone']);
      const secret = await store.secret();
      expect(secret).toHaveLength(32);
      expect((await store.secret()).equals(secret)).toBe(true);
      await store.close();
      store = await fixture.open();
      expect((await store.secret()).equals(secret)).toBe(true);
      const found = await store.keysById([made.get('kept')!.id, made.get('gone')!.id]);
      expect([...found.keys()]).toEqual([made.get('kept')!.id]);
      expect((await store.keysFor(['kept'])).get('kept')!.id).toBe(made.get('kept')!.id);
    });

    it('answers empty questions without a round trip failing', async () => {
      expect((await store.keysFor([])).size).toBe(0);
      expect((await store.keysById([])).size).toBe(0);
      expect(await store.destroy([])).toBe(0);
    });
  });
}
