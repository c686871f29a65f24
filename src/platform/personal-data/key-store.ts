/**
 * The key-store port: one key per data subject, kept beside the event log, never inside it.
 * Personal values in events are encrypted with their subject's key (personal-data-event-store.ts);
 * destroying the key erases them everywhere the log is read, replays and backups of the log
 * included (crypto-shredding, docs/privacy.md). Every adapter is held to
 * test/contract/key-store.contract.ts.
 */

/** A subject's key: `id` names it inside encrypted values, `key` is 32 random bytes (AES-256). */
export interface SubjectKey {
  readonly id: string;
  readonly key: Buffer;
}

export interface KeyStore {
  /**
   * The key of each subject (by its keyed hash, subjects.ts), made for those that have none. Two
   * callers asking at once for a new subject get the same key.
   */
  keysFor(subjects: readonly string[]): Promise<Map<string, SubjectKey>>;
  /** Keys by their ids; a destroyed (or unknown) id is absent from the answer. */
  keysById(ids: readonly string[]): Promise<Map<string, Buffer>>;
  /**
   * Destroys the keys of these subjects, for good: the store keeps no copy (SQLite overwrites the
   * freed pages and truncates its WAL). Answers how many of them had a key. A subject asked for
   * again later gets a new key: it is a new subject.
   */
  destroy(subjects: readonly string[]): Promise<number>;
  /**
   * The store's own secret, made at first use and never destroyed: it keys the hashes that name
   * subjects, streams and suppressed addresses, so that none of them can be recomputed from an
   * address without it.
   */
  secret(): Promise<Buffer>;
  close(): Promise<void>;
}
