/**
 * Where replay time and read-model memory go, projection by projection. Loads the first N
 * events of a store once (through the service's own SqliteEventStore), then replays them with
 * the service's own `replay()` into a fresh MemoryReadStore: once with every projection (the
 * start-up path, timed and optionally CPU-profiled), then once per projection, measuring the
 * time and the V8 heap it keeps (after a forced GC) and its documents.
 *
 * Usage: node --expose-gc bench/read-model-breakdown.mjs --db <events.sqlite> [--events 40000] [--dist <copy of dist/>]
 * Prints JSON (and sends it over IPC when started with one). Needs `npm run build` first.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function arg(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

/** The build to measure: dist/, or a copy of it (--dist). */
const DIST = resolve(arg('dist', join(ROOT, 'dist')));
const dist = (p) => import(pathToFileURL(join(DIST, p)).href);

if (typeof global.gc !== 'function') {
  process.stderr.write('run with node --expose-gc\n');
  process.exit(2);
}

const { SqliteEventStore } = await dist('platform/event-store/sqlite-event-store.js');
const { MemoryReadStore } = await dist('platform/read-store/memory-read-store.js');
const { replay } = await dist('platform/projections/projection-runner.js');
// What the service's runner is fed on the embedded store: the feature read models (the audit index
// lives in the SQLite file there, src/audit/audit-storage.ts). Builds from before that had one list.
const serviceProjections = (await dist('operations/service-projections.js')).serviceProjections ?? (await dist('projections.js')).allProjections;

const path = arg('db');
const limit = Number(arg('events', '200000'));

// Every event up to the limit, read once (their personal values opened, as the service reads them),
// then served from memory to each replay. Builds from before the personal-data layer read the log as it is.
const layer = await dist('platform/personal-data/personal-data-event-store.js').catch(() => undefined);
const log = new SqliteEventStore({ path });
const source = layer
  ? await layer.PersonalDataEventStore.open(
      log,
      new (await dist('platform/personal-data/sqlite-key-store.js')).SqliteKeyStore(`${path}-keys`),
      (await dist('operations/personal-data.js')).servicePersonalData,
    )
  : log;
const events = [];
const readStarted = performance.now();
for (let after = 0n; events.length < limit;) {
  const batch = await source.readAll({ after, maxCount: Math.min(1000, limit - events.length) });
  if (batch.length === 0) break;
  events.push(...batch);
  after = batch[batch.length - 1].position;
}
const readMs = performance.now() - readStarted;
await source.close();
const purchases = events.filter((e) => e.type === 'PurchaseRecorded').length;
const types = {};
for (const e of events) types[e.type] = (types[e.type] ?? 0) + 1;

/** An EventStore over the loaded array: readAll (with its `types` filter) and headPosition are all replay() uses. */
const memoryLog = {
  async headPosition() {
    return events.length === 0 ? 0n : events[events.length - 1].position;
  },
  async readAll({ after = 0n, until, maxCount = 1000, types } = {}) {
    const wanted = types ? new Set(types) : undefined;
    // Positions are dense rowids here; find the start by binary search to stay cheap.
    let lo = 0;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (events[mid].position <= after) lo = mid + 1;
      else hi = mid;
    }
    const out = [];
    for (let i = lo; i < events.length && out.length < maxCount; i += 1) {
      if (until !== undefined && events[i].position > until) break;
      if (!wanted || wanted.has(events[i].type)) out.push(events[i]);
    }
    return out;
  },
};

function heapUsed() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

async function countDocs(store, projections) {
  let docs = 0;
  for (const p of projections) docs += await store.collection(p.collection).count({});
  return docs;
}

// 1. One projection at a time.
let before;
let started;
const perProjection = [];
for (const projection of serviceProjections) {
  before = heapUsed();
  let one = new MemoryReadStore();
  started = performance.now();
  await replay(memoryLog, one, [projection]);
  const ms = performance.now() - started;
  const heap = heapUsed() - before;
  const docs = await countDocs(one, [projection]);
  perProjection.push({ name: projection.name, collection: projection.collection.name, indexes: projection.collection.indexes.length, docs, heap, ms });
  one = undefined;
}
// 2. Every projection together, as at start-up (last, so no earlier store is still being collected).
before = heapUsed();
let store = new MemoryReadStore();
const allFrom = process.hrtime.bigint();
started = performance.now();
await replay(memoryLog, store, serviceProjections);
const allMs = performance.now() - started;
const allTo = process.hrtime.bigint();
const allHeap = heapUsed() - before;
const allDocs = await countDocs(store, serviceProjections);
store = undefined;

// The loop over events and the batch reads alone, with no projection.
before = heapUsed();
started = performance.now();
await replay(memoryLog, new MemoryReadStore(), []);
const emptyMs = performance.now() - started;

perProjection.sort((a, b) => b.heap - a.heap);
const result = {
  events: events.length,
  purchases,
  types,
  readMs,
  all: {
    ms: allMs,
    heap: allHeap,
    docs: allDocs,
    eventsPerSecond: events.length / (allMs / 1000),
    window: { from: Number(allFrom / 1000n), to: Number(allTo / 1000n) },
  },
  loopOnlyMs: emptyMs,
  perProjection,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.send?.(result);
process.disconnect?.();
