/** One read-model collection on MongoDB: position-guarded puts, bulk apply, queries, walks and indexes. */
import { type AnyBulkWriteOperation, type Collection, type Document, type Filter, MongoBulkWriteError, MongoServerError } from 'mongodb';
import {
  byOrder,
  CollectionDef,
  DocChange,
  ListQuery,
  orderOf,
  positionKey,
  ReadCollection,
  ReadDoc,
  Scalar,
  walkPage,
  WalkPage,
  WalkQuery,
} from './read-store.js';
import { DUPLICATE_KEY, refusesPipelineUpdates, reaching, isDuplicateKey } from './mongo-errors.js';
import {
  StoredDoc,
  escapeRegex,
  storedDoc,
  restoredDoc,
  withoutBorn,
  WITHOUT_POSITION,
  FIRST_POSITION,
  bornAt,
  GONE,
  LIVE,
  olderThan,
} from './mongo-documents.js';

const NAMESPACE_NOT_FOUND = 26;

/**
 * How puts are written: one pipeline upsert (MongoDB 4.2+), or a read then a compare-and-swap on
 * `_pos` for servers without pipeline updates (FerretDB 1.x, Amazon DocumentDB), learned from the first refusal.
 */
export type PutForm = 'pipeline' | 'portable';

/** Documents applyMany reads and writes at once. */
const MANY_AT_ONCE = 1000;

/** A document while applyMany applies its changes: as read (`stored`, `readPos`) and as changed so far. */
interface ChunkState<T extends ReadDoc> {
  stored: boolean;
  readPos: string | undefined;
  pos: string | undefined;
  doc: T | null;
  born: string | undefined;
  dirty: boolean;
}

export class MongoCollection<T extends ReadDoc> implements ReadCollection<T> {
  private ready: Promise<void> | undefined;

  constructor(
    private readonly collection: Collection<StoredDoc>,
    private readonly def: CollectionDef,
    /** How far this process has applied the log (ReadStore.trackApplied), once the projection runner said. */
    private readonly applied: () => (() => bigint) | undefined,
    /** Shared by the store's collections: the form its server takes. */
    private readonly form: { put: PutForm },
  ) {
    this.order = orderOf(def);
  }

  readonly order: string;

  /** Forget the index build (after clear() dropped the collection) so it runs again. */
  reset(): void {
    this.ready = undefined;
  }

  async get(id: string): Promise<T | null> {
    return reaching(async () => {
      await this.ensureIndexes();
      const doc = await this.collection.findOne({ _id: id, ...LIVE }, { projection: WITHOUT_POSITION });
      return doc === null ? null : restoredDoc<T>(doc);
    });
  }

  async findOne(where: Record<string, Scalar>): Promise<T | null> {
    const [first] = await this.list({ where, limit: 1 });
    return first ?? null;
  }

  put(doc: T, position: bigint): Promise<boolean> {
    return reaching(() => this.putNow(doc, position));
  }

  private async putNow(doc: T, position: bigint): Promise<boolean> {
    await this.ensureIndexes();
    const key = positionKey(position);
    if (this.form.put === 'portable') return this.putPortable(doc, key);
    try {
      return await this.putPipeline(doc, key);
    } catch (error) {
      if (!refusesPipelineUpdates(error)) throw error;
      this.form.put = 'portable';
      return this.putPortable(doc, key);
    }
  }

  /** The put as one upsert whose replacement is a pipeline, which keeps `_born` on the server. */
  private async putPipeline(doc: T, key: string): Promise<boolean> {
    const filter: Filter<StoredDoc> = { _id: doc._id, ...olderThan(key) };
    // A miss means the document exists with _pos >= key, and the upsert then fails on _id.
    // A duplicate key can also come from a concurrent first insert of the same _id; the retry
    // then finds that document and replaces it if it is older, so a second duplicate key means
    // the document has really seen this position already.
    for (let attempt = 0; ; attempt += 1) {
      try {
        // A pipeline replacement ($replaceWith) rather than replaceOne, to keep `_born`; $literal so
        // that no string of the document is read as an expression ("$field").
        const replacement = [
          { $replaceWith: { $mergeObjects: [{ $literal: { ...storedDoc(doc), _pos: key } }, { _born: bornAt(key, this.order, doc[this.order] as string) }] } },
        ];
        const result = await this.collection.updateOne(filter, replacement, { upsert: true });
        return result.matchedCount > 0 || result.upsertedCount > 0;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        if (attempt >= 1) return false;
      }
    }
  }

  /**
   * The put as a read, then a replacement only if `_pos` is still what was read (or an insert where
   * there was nothing): a miss means another write came between, so it reads again.
   */
  private async putPortable(doc: T, key: string): Promise<boolean> {
    for (;;) {
      const current = await this.collection.findOne({ _id: doc._id }, { projection: { _pos: 1, _born: 1, [this.order]: 1 } });
      if (current === null) {
        try {
          await this.collection.insertOne({ ...storedDoc(doc), _pos: key, _born: key } as StoredDoc);
          return true;
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
          continue;
        }
      }
      const pos = typeof current._pos === 'string' ? current._pos : undefined;
      if (pos !== undefined && pos >= key) return false;
      // As bornAt: kept while the order value is the same, a document stored before `_born` existed taking the first position.
      const kept = typeof current._born === 'string' ? current._born : pos === undefined ? key : FIRST_POSITION;
      const born = current[this.order] === doc[this.order] ? kept : key;
      const result = await this.collection.replaceOne({ _id: doc._id, _pos: pos ?? { $exists: false } }, { ...storedDoc(doc), _pos: key, _born: born });
      if (result.matchedCount > 0) return true;
    }
  }

  applyMany(changes: readonly DocChange<T>[]): Promise<void> {
    return reaching(async () => {
      await this.ensureIndexes();
      for (let from = 0; from < changes.length; from += MANY_AT_ONCE) await this.applyChunk(changes.slice(from, from + MANY_AT_ONCE));
    });
  }

  /** applyMany for at most MANY_AT_ONCE changes: one read of their documents, the changes applied here, one unordered bulk write. */
  private async applyChunk(changes: readonly DocChange<T>[]): Promise<void> {
    const ids = [...new Set(changes.map((c) => c.id))];
    const states = new Map<string, ChunkState<T>>();
    for (const stored of await this.collection.find({ _id: { $in: ids } }).toArray()) {
      const { _pos, _born, [GONE]: gone, ...rest } = stored;
      const pos = typeof _pos === 'string' ? _pos : undefined;
      const doc = gone === true ? null : restoredDoc<T>(rest);
      states.set(stored._id, {
        stored: true,
        readPos: pos,
        pos,
        doc,
        born: typeof _born === 'string' ? _born : pos === undefined ? undefined : FIRST_POSITION,
        dirty: false,
      });
    }
    for (const { id, position, change } of changes) {
      let state = states.get(id);
      if (state === undefined) states.set(id, (state = { stored: false, readPos: undefined, pos: undefined, doc: null, born: undefined, dirty: false }));
      const key = positionKey(position);
      if (state.pos !== undefined && state.pos >= key) continue;
      const next = change(state.doc);
      if (next) {
        // As bornAt: kept while the order value is the same; a new document, or one that moved, is recorded at this position.
        state.born = state.doc !== null && state.doc[this.order] === next[this.order] ? (state.born ?? key) : key;
        state.doc = next;
      } else if (state.doc) state.doc = null;
      else continue;
      state.pos = key;
      state.dirty = true;
    }
    const writes: AnyBulkWriteOperation<StoredDoc>[] = [];
    let replaces = 0;
    for (const [id, state] of states) {
      if (!state.dirty) continue;
      const stored = (
        state.doc === null ? { _id: id, _pos: state.pos, [GONE]: true } : { ...storedDoc(state.doc), _pos: state.pos, _born: state.born }
      ) as StoredDoc;
      if (!state.stored) writes.push({ insertOne: { document: stored } });
      else {
        // Compare-and-swap on the `_pos` read: a miss means another writer came between.
        const { _id, ...replacement } = stored;
        writes.push({ replaceOne: { filter: { _id: id, _pos: state.readPos ?? { $exists: false } }, replacement } });
        replaces += 1;
      }
    }
    if (writes.length === 0) return;
    let raced: boolean;
    try {
      const result = await this.collection.bulkWrite(writes, { ordered: false });
      raced = result.matchedCount < replaces;
    } catch (error) {
      const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
      if (writeErrors.length === 0 || writeErrors.some((e) => e.code !== DUPLICATE_KEY)) throw error;
      raced = true;
    }
    // Another writer (a second store on the database) came between: the changes again one at a
    // time, which skip, by their positions, those this bulk write made.
    if (raced) {
      for (const { id, position, change } of changes) {
        const key = positionKey(position);
        const doc = await this.get(id);
        const next = change(doc);
        if (next) await this.putNow(next, position);
        else if (doc) await this.collection.replaceOne({ _id: id, ...LIVE, ...olderThan(key) }, { _pos: key, [GONE]: true });
      }
    }
  }

  async delete(id: string, position: bigint): Promise<boolean> {
    return reaching(async () => {
      await this.ensureIndexes();
      const key = positionKey(position);
      const result = await this.collection.replaceOne({ _id: id, ...LIVE, ...olderThan(key) }, { _pos: key, [GONE]: true });
      return result.matchedCount === 1;
    });
  }

  async list(query: ListQuery): Promise<T[]> {
    if (query.limit <= 0) return [];
    return reaching(async () => {
      await this.ensureIndexes();
      let cursor = this.collection.find(this.filter(query, true), { projection: WITHOUT_POSITION }).sort({ [this.order]: 1, _id: 1 });
      // Offsets are v1 paging only; with a keyset cursor they are ignored, as in the embedded store.
      if (!query.after && query.offset) cursor = cursor.skip(query.offset);
      return (await cursor.limit(query.limit).toArray()).map((doc) => restoredDoc<T>(doc));
    });
  }

  async walk(query: WalkQuery): Promise<WalkPage<T>> {
    return reaching(async () => {
      await this.ensureIndexes();
      const { limit, after } = query;
      // Every document of every event up to `through` is here. This process's projections have
      // applied the log that far (puts of one event are not atomic: a page must not show part of
      // one and pass the place of a document it has yet to write); without a runner (a tool), the
      // highest creation position stored. Never below the cursor's own.
      const since = after?.through === undefined ? undefined : positionKey(BigInt(after.through));
      const through = await this.walkedThrough(since);
      let late: StoredDoc[] = [];
      if (after !== undefined && since !== undefined) {
        // Recorded after the page that issued the cursor, at or before it: the walk has passed their
        // place. In (position, _id) order; `lateId` goes on among those of one position.
        const { at, _id, lateId } = after;
        const recorded =
          lateId === undefined
            ? { _born: { $gt: since, $lte: through } }
            : { $or: [{ _born: { $gt: since, $lte: through } }, { _born: since, _id: { $gt: lateId } }] };
        if (since < through || lateId !== undefined) {
          const atOrBefore = { $or: [{ [this.order]: { $lt: at } }, { [this.order]: at, _id: { $lte: _id } }] };
          late = await this.collection
            .find({ $and: [this.filter(query, false), recorded, atOrBefore] }, { projection: { _pos: 0 } })
            .sort({ _born: 1, _id: 1 })
            .limit(limit + 1)
            .toArray();
        }
        if (late.length > limit) {
          // More of them than a page holds: the next page goes on from the last one shown.
          late.length = limit;
          const last = late[late.length - 1];
          const next = last === undefined ? after : { at, _id, through: BigInt(last._born as string).toString(), lateId: last._id };
          return { docs: late.map(withoutBorn<T>).sort(byOrder(this.order)), more: true, next };
        }
      }
      const room = limit - late.length;
      const cursor = after && { at: after.at, _id: after._id };
      const rest = (
        await this.collection
          .find({ $and: [this.filter({ ...query, after: cursor }, true), { _born: { $not: { $gt: through } } }] }, { projection: WITHOUT_POSITION })
          .sort({ [this.order]: 1, _id: 1 })
          .limit(room + 1)
          .toArray()
      ).map((doc) => restoredDoc<T>(doc));
      return walkPage(late.map(withoutBorn<T>), rest, room, cursor, BigInt(through).toString(), this.order);
    });
  }

  /** The position key through which a walk's page may show documents (see walk), never below the cursor's (`since`). */
  private async walkedThrough(since: string | undefined): Promise<string> {
    const applied = this.applied();
    let through: string;
    if (applied !== undefined) through = positionKey(applied());
    else {
      // Strings only: {$exists: true} would fetch every document to tell.
      const highest = await this.collection.findOne({ _born: { $type: 'string' } }, { sort: { _born: -1 }, projection: { _born: 1 } });
      through = typeof highest?._born === 'string' ? highest._born : FIRST_POSITION;
    }
    return since !== undefined && since > through ? since : through;
  }

  async count(query: Omit<ListQuery, 'limit' | 'offset' | 'after'>): Promise<number> {
    return reaching(async () => {
      await this.ensureIndexes();
      return this.collection.countDocuments(this.filter(query, false));
    });
  }

  private filter(query: Omit<ListQuery, 'limit' | 'offset'>, withCursor: boolean): Filter<StoredDoc> {
    // Equality on every `where` field; { field: null } also matches a missing field. An undefined
    // value means null, as in the embedded store (the driver would drop the key and match everything).
    const filter: Document = { ...LIVE };
    for (const [field, value] of Object.entries(query.where ?? {})) filter[field] = value === undefined ? null : value;
    const and: Document[] = [];
    if (query.from !== undefined || query.before !== undefined) {
      const range: Document = {};
      if (query.from !== undefined) range.$gte = query.from;
      if (query.before !== undefined) range.$lt = query.before;
      and.push({ [this.order]: range });
    }
    if (query.prefix) {
      const value = query.prefix.value.toLowerCase();
      // An empty prefix matches everything, as in the embedded store.
      if (value !== '') {
        const pattern = `^${escapeRegex(value)}`;
        and.push({ $or: query.prefix.fields.map((field) => ({ [field]: { $regex: pattern } })) });
      }
    }
    if (withCursor && query.after) {
      const { at, _id } = query.after;
      const order = this.order;
      // The bound on the order field alone lets the planner start the index scan at the cursor.
      and.push({ [order]: { $gte: at }, $or: [{ [order]: { $gt: at } }, { [order]: at, _id: { $gt: _id } }] });
    }
    if (and.length > 0) filter.$and = and;
    return filter as Filter<StoredDoc>;
  }

  /** The key patterns of the collection's indexes, as JSON; none when it does not exist yet (NamespaceNotFound). */
  private async existingIndexes(): Promise<Set<string>> {
    try {
      return new Set((await this.collection.listIndexes().toArray()).map((index) => JSON.stringify(index.key)));
    } catch (error) {
      if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return new Set();
      throw error;
    }
  }

  /** Builds the declared indexes once, before the first operation on the collection. */
  private ensureIndexes(): Promise<void> {
    this.ready ??= (async () => {
      const keys: Record<string, 1>[] = this.def.indexes.map((fields) => ({
        ...Object.fromEntries(fields.map((field) => [field, 1 as const])),
        [this.order]: 1,
        _id: 1,
      }));
      keys.push({ [this.order]: 1, _id: 1 }, { _born: 1 });
      // A walk's late documents are found by creation position: within a declared index's first field
      // (the merchant, for every list), so an old cursor reads that merchant's documents created since, not everyone's.
      for (const first of new Set(this.def.indexes.map((fields) => fields[0]).filter((field) => field !== undefined)))
        keys.push({ [first]: 1, _born: 1, _id: 1 });
      // Only those missing: FerretDB 1.24 drops the connection when asked to create an index that exists.
      const existing = await this.existingIndexes();
      const missing = keys.filter((key) => !existing.has(JSON.stringify(key)));
      if (missing.length > 0) await this.collection.createIndexes(missing.map((key) => ({ key })));
    })().catch((error: unknown) => {
      this.ready = undefined; // let the next operation try again
      throw error;
    });
    return this.ready;
  }
}
