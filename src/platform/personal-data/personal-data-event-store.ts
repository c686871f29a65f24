/**
 * The event store every part of the service uses: an adapter (SQLite, EventStoreDB) behind a layer
 * that encrypts each event's personal values with their subjects' keys as it is appended, and
 * opens them as events are read. Erasing a subject destroys its keys: from then on every read of
 * the log (projections, rebuilds, the audit trail, point-in-time reads) finds null where its
 * values were. docs/privacy.md.
 */
import { createHmac } from 'node:crypto';
import type {
  AppendResult,
  BatchReadOptions,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ProjectedEvent,
  ReadAllOptions,
  RecordedEvent,
  StreamAppend,
  Subscription,
} from '../event-store/event-store.js';
import type { EventIndexQuery, EventIndexRebuild, IndexedEventStore } from '../event-store/sqlite-event-index.js';
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { TRANSFORMED_ON_THREAD } from '../event-store/sqlite-reader.js';
import { Envelope, isEnvelope, keyIdsOf, MARK, open, seal } from './envelope.js';
import { KeyStore, SubjectKey } from './key-store.js';
import { normaliseAddress, Path, PersonalDataMap, PersonalValue, Subject } from './personal-fields.js';
import { SqliteKeyStore } from './sqlite-key-store.js';
import { threadOpener } from './thread-opener.js';

/** Entries kept in each cache before it is cleared (opened values, keys by id, keys by subject). */
const CACHE_LIMIT = 10_000;

type Data = Record<string, unknown>;
type Container = Record<string | number, unknown>;

/** The embedded store's event index is handed on, its events opened (the audit trail reads it). */
export class PersonalDataEventStore implements EventStore, IndexedEventStore {
  private readonly opened = new Map<string, unknown>();
  private readonly keysById = new Map<string, Buffer | null>();
  private readonly keysBySubject = new Map<string, SubjectKey>();
  /** Subjects' keyed hashes by their canonical names, and envelopes by key ids and values: the same advocate is sealed again and again. */
  private readonly subjectIds = new Map<string, string>();
  private readonly sealed = new Map<string, Envelope[]>();
  /** Opened ciphertexts (their values' JSON texts) by their text, for the other values sealed with them. */
  private readonly plains = new Map<string, string[]>();
  /** How many erasures this layer made, shared with the reader threads that open values (thread-opener.ts). */
  private readonly erasures = new Int32Array(new SharedArrayBuffer(4));

  /** Set when the adapter has them (EventStore's optional capabilities), and replaceable like any store's (tests count commits). */
  appendMany: EventStore['appendMany'];
  readBatches: EventStore['readBatches'];

  private constructor(
    readonly inner: EventStore,
    private readonly keys: KeyStore,
    private readonly personal: PersonalDataMap,
    private readonly secret: Buffer,
  ) {
    const appendMany = inner.appendMany?.bind(inner);
    this.appendMany = appendMany
      ? async (appends: readonly StreamAppend[]) => {
          const sealed = await Promise.all(appends.map(async (a) => ({ ...a, events: await this.sealAll(a.events) })));
          const results = await appendMany(sealed);
          return results.map((result, i) => ({ ...result, events: result.events.map((stored, j) => ({ ...stored, data: appends[i].events[j].data })) }));
        }
      : undefined;
    // The embedded store with its key store in a file opens long reads' values on its reader thread.
    if (inner instanceof SqliteEventStore && keys instanceof SqliteKeyStore && keys.path !== ':memory:')
      inner.readAheadTransform = threadOpener(keys.path, this.erasures);
    const readBatches = inner.readBatches?.bind(inner) as ((options: BatchReadOptions) => AsyncIterable<RecordedEvent[]>) | undefined;
    const openAll = (batch: RecordedEvent[]) => this.openAll(batch);
    this.readBatches = readBatches
      ? (async function* (options: BatchReadOptions) {
          for await (const batch of readBatches(options)) yield TRANSFORMED_ON_THREAD in batch ? unmarked(batch) : await openAll(batch);
        } as EventStore['readBatches'])
      : undefined;
  }

  static async open(inner: EventStore, keys: KeyStore, personal: PersonalDataMap): Promise<PersonalDataEventStore> {
    return new PersonalDataEventStore(inner, keys, personal, await keys.secret());
  }

  /**
   * A keyed hash of a subject: how the key store names it. Also the name an address goes by where
   * it must be found again without being kept (stream names, suppressed addresses): `emailKey`.
   */
  subjectId(subject: Subject): string {
    const canonical =
      subject.kind === 'email'
        ? `e:${subject.merchantId}:${normaliseAddress(subject.email)}`
        : subject.kind === 'customer'
          ? `c:${subject.merchantId}:${subject.customerId}`
          : `j:${subject.jobId}`;
    let id = this.subjectIds.get(canonical);
    if (id === undefined) {
      if (this.subjectIds.size >= CACHE_LIMIT) this.subjectIds.clear();
      id = createHmac('sha256', this.secret).update(canonical).digest('base64url');
      this.subjectIds.set(canonical, id);
    }
    return id;
  }

  emailKey(merchantId: number, email: string): string {
    return this.subjectId({ kind: 'email', merchantId, email });
  }

  /** Destroys the subjects' keys; the number that had one. Values sealed under them read null from now on. */
  async erase(subjects: readonly Subject[]): Promise<number> {
    const destroyed = await this.keys.destroy(subjects.map((s) => this.subjectId(s)));
    Atomics.add(this.erasures, 0, 1);
    this.opened.clear();
    this.plains.clear();
    this.keysById.clear();
    this.keysBySubject.clear();
    this.sealed.clear();
    return destroyed;
  }

  // ---- writing: seal -------------------------------------------------------------------------

  private async sealAll<E extends Pick<NewEvent, 'type' | 'data'>>(events: readonly E[]): Promise<E[]> {
    const found = events.map((event) => this.personal[event.type]?.(event.data as never) ?? []);
    // This call's keys, held here: the cache may be cleared while they are fetched.
    const keyOf = new Map<string, SubjectKey>();
    const missing = new Set<string>();
    const ids = found.map((values) => values.map((value) => value.subjects.map((s) => this.subjectId(s))));
    for (const list of ids) {
      for (const value of list) {
        for (const id of value) {
          const cached = this.keysBySubject.get(id);
          if (cached) keyOf.set(id, cached);
          else missing.add(id);
        }
      }
    }
    if (missing.size > 0) {
      const made = await this.keys.keysFor([...missing]);
      if (this.keysBySubject.size + made.size > CACHE_LIMIT) this.keysBySubject.clear();
      for (const [subject, key] of made) {
        keyOf.set(subject, key);
        this.keysBySubject.set(subject, key);
      }
    }
    return events.map((event, i) => {
      const values = found[i];
      if (values.length === 0) return event;
      const data = { ...(event.data as Data), [MARK]: 1 };
      const copied = new Set<unknown>([data]);
      // The event's values under the same keys, sealed together.
      const together = new Map<string, { keys: SubjectKey[]; paths: Path[]; values: unknown[] }>();
      values.forEach((value, j) => {
        const current = valueAt(data, value.path);
        if (current === undefined || current === null || isEnvelope(current)) return;
        const keys = [...new Set(ids[i][j])].sort().map((id) => keyOf.get(id)!);
        const name = keys.map((k) => k.id).join(',');
        const group = together.get(name) ?? { keys, paths: [], values: [] };
        together.set(name, group);
        group.paths.push(value.path);
        group.values.push(current);
      });
      for (const group of together.values()) {
        const envelopes = this.sealTogether(group.values, group.keys);
        group.paths.forEach((path, n) => setAt(data, path, envelopes[n], copied));
      }
      return { ...event, data };
    });
  }

  /**
   * `values` sealed together under `keys`, from the cache when they were sealed under them before;
   * readers in this process then find them opened already (what was just appended is read back
   * at once by the projections, the webhook reactor and the next command).
   */
  private sealTogether(values: readonly unknown[], keys: readonly SubjectKey[]): Envelope[] {
    const cacheKey = `${keys.map((k) => k.id).join(',')}\u0000${JSON.stringify(values)}`;
    let envelopes = this.sealed.get(cacheKey);
    if (!envelopes) {
      envelopes = seal(values, keys);
      if (this.sealed.size >= CACHE_LIMIT) this.sealed.clear();
      this.sealed.set(cacheKey, envelopes);
    }
    if (this.opened.size + envelopes.length > CACHE_LIMIT) this.opened.clear();
    envelopes.forEach((envelope, n) => this.opened.set(envelope[MARK], values[n]));
    return envelopes;
  }

  /**
   * The data of each event with its declared personal values sealed, as `append` stores it; values
   * sealed already are kept. For rewriting a log written before this layer (operations/personal-data-migration.ts).
   */
  async sealData(events: readonly Pick<NewEvent, 'type' | 'data'>[]): Promise<unknown[]> {
    return (await this.sealAll(events)).map((event) => event.data);
  }

  async append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const result = await this.inner.append(streamName, await this.sealAll(events), expected);
    return { ...result, events: result.events.map((stored, i) => ({ ...stored, data: events[i].data })) };
  }

  // ---- reading: open -------------------------------------------------------------------------

  /** The events with their personal values opened (null where a key is gone); unmarked events are handed on as they are. */
  async openAll<E extends ProjectedEvent>(events: E[]): Promise<E[]> {
    // This call's keys and values opened before, held here: the caches may be cleared (by this
    // call when full, or by another one) while missing keys are fetched.
    const keys = new Map<string, Buffer | null>();
    const known = new Map<string, unknown>();
    const missing = new Set<string>();
    let marked = false;
    for (const event of events) {
      const data = event.data as Data | null;
      if (data === null || typeof data !== 'object' || data[MARK] !== 1) continue;
      marked = true;
      forEachEnvelope(data, (envelope) => {
        const text = envelope[MARK];
        const value = this.opened.get(text);
        if (value !== undefined) return void known.set(text, value);
        for (const id of keyIdsOf(envelope)) {
          if (keys.has(id) || missing.has(id)) continue;
          const key = this.keysById.get(id);
          if (key === undefined) missing.add(id);
          else keys.set(id, key);
        }
      });
    }
    if (!marked) return events;
    if (missing.size > 0) {
      const found = await this.keys.keysById([...missing]);
      if (this.keysById.size + missing.size > CACHE_LIMIT) this.keysById.clear();
      for (const id of missing) {
        const key = found.get(id) ?? null;
        keys.set(id, key);
        this.keysById.set(id, key);
      }
    }
    if (this.opened.size > CACHE_LIMIT) this.opened.clear();
    const keyOf = (id: string) => keys.get(id) ?? undefined;
    return events.map((event) => {
      const data = event.data as Data | null;
      if (data === null || typeof data !== 'object' || data[MARK] !== 1) return event;
      return { ...event, data: this.openData(data, keyOf, known) };
    });
  }

  private openData(data: Data, keyOf: (id: string) => Buffer | undefined, known: ReadonlyMap<string, unknown>): Data {
    const out = openTree(data, (envelope) => {
      const text = envelope[MARK];
      let value = known.get(text) ?? this.opened.get(text);
      if (value === undefined) {
        if (this.plains.size >= CACHE_LIMIT) this.plains.clear();
        value = open(envelope, keyOf, this.plains);
        // A value that did not open is not cached: its key may be in a cache cleared since.
        if (value !== null) this.opened.set(text, value);
      }
      return value;
    }) as Data;
    const { [MARK]: _mark, ...rest } = out;
    return rest;
  }

  async readStream(streamName: string): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readStream(streamName));
  }

  async readLastOfStream(streamName: string): Promise<RecordedEvent | undefined> {
    const last = await this.inner.readLastOfStream(streamName);
    return last ? (await this.openAll([last]))[0] : undefined;
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readAll(options));
  }

  subscribe(after?: bigint): Subscription {
    const inner = this.inner.subscribe(after);
    const openOne = async (event: RecordedEvent) => (await this.openAll([event]))[0];
    return {
      close: () => inner.close(),
      async *[Symbol.asyncIterator]() {
        for await (const event of inner) yield await openOne(event);
      },
    };
  }

  headPosition(): Promise<bigint> {
    return this.inner.headPosition();
  }

  lastEventTime(): Promise<Date | undefined> {
    return this.inner.lastEventTime();
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      await this.keys.close();
    }
  }

  // ---- the embedded store's event index, when the adapter keeps one ---------------------------

  private get indexed(): IndexedEventStore | undefined {
    const inner = this.inner as Partial<IndexedEventStore>;
    return typeof inner.readIndex === 'function' ? (inner as IndexedEventStore) : undefined;
  }

  get indexVersion(): string | undefined {
    return this.indexed?.indexVersion;
  }

  get indexRebuild(): EventIndexRebuild | undefined {
    return this.indexed?.indexRebuild;
  }

  async readIndex(query: EventIndexQuery): Promise<RecordedEvent[]> {
    return this.openAll(await this.indexed!.readIndex(query));
  }

  async inIndex(merchantId: number, entity: string): Promise<boolean> {
    return this.indexed!.inIndex(merchantId, entity);
  }
}

/** The event store's personal-data layer as features inject it (PlatformModule). */
export const PERSONAL_DATA = Symbol('PersonalData');

/** The store's personal-data layer, when it has one (through any wrapper that hands on its properties). */
export function personalDataOf(store: EventStore): PersonalDataEventStore | undefined {
  return store instanceof PersonalDataEventStore ? store : undefined;
}

function valueAt(data: Data, path: Path): unknown {
  let at: unknown = data;
  for (const step of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Container)[step];
  }
  return at;
}

/** Sets the value at `path`, copying each container on the way that is not yet this event's own copy. */
function setAt(data: Data, path: Path, value: unknown, copied: Set<unknown>): void {
  let at: Container = data as Container;
  for (let i = 0; i < path.length - 1; i += 1) {
    const child = at[path[i]];
    const own = copied.has(child) ? child : Array.isArray(child) ? [...(child as unknown[])] : { ...(child as Data) };
    copied.add(own);
    at[path[i]] = own;
    at = own as Container;
  }
  at[path[path.length - 1]] = value;
}

/** Events whose values the reader thread opened, without the mark that said they held sealed ones (the events are the batch's own). */
function unmarked<E extends ProjectedEvent>(events: E[]): E[] {
  for (const event of events) {
    const data = event.data as Data | null;
    if (data !== null && typeof data === 'object' && data[MARK] === 1) delete data[MARK];
  }
  return events;
}

function forEachEnvelope(value: unknown, visit: (envelope: Envelope) => void): void {
  if (value === null || typeof value !== 'object') return;
  if (isEnvelope(value)) return visit(value);
  if (Array.isArray(value)) for (const item of value) forEachEnvelope(item, visit);
  else for (const key in value) forEachEnvelope((value as Data)[key], visit);
}

/** A copy of `value` with every envelope replaced by what `openOne` makes of it; parts without one are shared, not copied. */
function openTree(value: unknown, openOne: (envelope: Envelope) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (isEnvelope(value)) return openOne(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = openTree(item, openOne);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  let out: Data | undefined;
  for (const key in value) {
    const item = (value as Data)[key];
    const next = openTree(item, openOne);
    if (next !== item) (out ??= { ...(value as Data) })[key] = next;
  }
  return out ?? value;
}

export type { PersonalValue };
