/**
 * The embedded audit index (SQLite, src/audit/sqlite-audit-index.ts) against the read-model one
 * (src/audit/audit-index.projection.ts over the in-memory store): rebuild at open, page queries,
 * per-append cost, replay time and heap. Synthetic purchases as bench/gen-events.mjs writes them
 * (4 events each), spread over merchants and advocates.
 *
 * Usage: node --expose-gc bench/experiments/audit-index.mjs [--dist <build>] [--rebuild 200000] [--pages 50000] [--appends 20000]
 * Needs a build (`npm run build`, or tsc -p tsconfig.build.json --outDir <dir>). Writes only under os.tmpdir().
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { purchaseEvents } from '../gen-events.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const DIST = resolve(arg('dist', join(ROOT, 'dist')));
const dist = (p) => import(pathToFileURL(join(DIST, p)).href);

const { SqliteEventStore } = await dist('platform/event-store/sqlite-event-store.js');
const { MemoryReadStore } = await dist('platform/read-store/memory-read-store.js');
const { replay } = await dist('platform/projections/projection-runner.js');
const { allProjections } = await dist('projections.js');
const { auditProjections } = await dist('audit/audit-index.projection.js');
const { ReadModelAuditIndex } = await dist('audit/read-model-audit-index.js');
const { auditEventIndex, SqliteAuditIndex } = await dist('audit/sqlite-audit-index.js');

const MERCHANTS = 20;
const ADVOCATES_PER_MERCHANT = 50;
const work = mkdtempSync(join(tmpdir(), 'audit-index-bench-'));
const gc = () => global.gc?.();
const heap = () => (gc(), process.memoryUsage().heapUsed);
const mb = (bytes) => Math.round(bytes / 1e5) / 10;

/** A log of `total` events: per merchant a registration, then purchases round-robin over merchants. */
export function fill(path, total) {
  new SqliteEventStore({ path }).close();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const ledger = new Map();
  let ms = Date.UTC(2026, 0, 1);
  let n = 0;
  db.transaction(() => {
    for (let m = 1; m <= MERCHANTS; m += 1) {
      insert.run(
        randomUUID(),
        `merchant-${m}`,
        0,
        'MerchantRegistered',
        JSON.stringify({
          merchantId: m,
          name: `M${m}`,
          accessKey: `ak_${m}`,
          secretKey: 'sk_x',
          settings: { canSeeRecipients: false },
          registeredAt: new Date(ms).toISOString(),
        }),
        JSON.stringify({ merchantId: m }),
        new Date(ms).toISOString(),
      );
      n += 1;
    }
    for (let i = 0; n < total; i += 1) {
      const merchantId = (i % MERCHANTS) + 1;
      const advocate = merchantId * 1000 + (Math.floor(i / MERCHANTS) % ADVOCATES_PER_MERCHANT);
      const link = { code: `C${advocate}`, advocateCustomerId: advocate, advocateEmail: `a${advocate}@example.com` };
      for (const e of purchaseEvents({ merchantId, widgetId: merchantId * 10, link, orderId: `o-${i}`, ms })) {
        if (n >= total) break;
        let revision = e.type === 'ConversionAttributed' ? 1 : 0;
        if (e.ledger) ledger.set(e.stream, (revision = (ledger.get(e.stream) ?? -1) + 1));
        insert.run(randomUUID(), e.stream, revision, e.type, JSON.stringify(e.data), JSON.stringify({ merchantId }), e.at);
        n += 1;
      }
      ms += 7;
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const size = (path) =>
  statSync(path).size +
  (() => {
    try {
      return statSync(`${path}-wal`).size;
    } catch {
      return 0;
    }
  })();

async function timePages(index, filter, limit = 100) {
  let pages = 0;
  let entries = 0;
  let after;
  const started = performance.now();
  for (;;) {
    const got = await index.page(filter, { limit, after });
    pages += 1;
    entries += Math.min(got.length, limit);
    if (got.length <= limit || pages >= 200) break;
    const last = got[limit - 1];
    after = { created_at: last.created_at, _id: last._id };
  }
  return { pages, entries, msPerPage: Math.round(((performance.now() - started) / pages) * 1000) / 1000 };
}

const main = import.meta.url === pathToFileURL(process.argv[1]).href;
const results = {};
if (main) {
  // 1. Rebuild at open: a database written without the index, opened with it.
  {
    const total = Number(arg('rebuild', '200000'));
    const path = join(work, 'rebuild.sqlite');
    fill(path, total);
    const before = size(path);
    const store = new SqliteEventStore({ path, index: auditEventIndex });
    const { ms, events, entries } = store.indexRebuild;
    await store.close();
    const db = new Database(path);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    results.rebuild = {
      events,
      entries,
      seconds: Math.round(ms) / 1000,
      eventsPerSecond: Math.round(events / (ms / 1000)),
      fileMbBefore: mb(before),
      fileMbAfter: mb(size(path)),
    };
  }

  // 2. Page queries on a smaller log, both adapters; replay cost of the read-model one.
  {
    const total = Number(arg('pages', '50000'));
    const path = join(work, 'pages.sqlite');
    fill(path, total);
    const sqliteStore = new SqliteEventStore({ path, index: auditEventIndex });
    const plainStore = new SqliteEventStore({ path });
    const memory = new MemoryReadStore();
    const heap0 = heap();
    let started = performance.now();
    await replay(plainStore, memory, allProjections);
    const featuresMs = performance.now() - started;
    const heap1 = heap();
    const withAudit = new MemoryReadStore();
    started = performance.now();
    await replay(plainStore, withAudit, [...allProjections, ...auditProjections]);
    const withAuditMs = performance.now() - started;
    const heap2 = heap();
    results.replay = {
      events: total,
      featureModels: { seconds: Math.round(featuresMs) / 1000, heapMb: mb(heap1 - heap0) },
      withAuditProjection: { seconds: Math.round(withAuditMs) / 1000, heapMb: mb(heap2 - heap1) },
    };
    const adapters = { sqlite: new SqliteAuditIndex(sqliteStore), readModel: new ReadModelAuditIndex(withAudit, plainStore) };
    const advocate = 1000 * 3 + 7;
    const filters = {
      merchantLog: { merchantId: 3 },
      entityAdvocate: { merchantId: 3, entity: `customer:${advocate}` },
      entityWidget: { merchantId: 3, entity: 'widget:30' },
      oneType: { merchantId: 3, types: ['RewardApproved'] },
      twoTypes: { merchantId: 3, types: ['RewardApproved', 'ConversionAttributed'] },
      rareType: { merchantId: 3, types: ['MerchantRegistered'] },
      stream: { merchantId: 3, stream: `advocate-rewards-3-30-c${advocate}` },
    };
    results.pages = {};
    for (const [name, filter] of Object.entries(filters)) {
      results.pages[name] = {};
      for (const [adapter, index] of Object.entries(adapters)) {
        await timePages(index, filter); // warm
        results.pages[name][adapter] = await timePages(index, filter);
      }
    }
    await sqliteStore.close();
    await plainStore.close();
  }

  // 3. Per-append cost: the same appends (one purchase's events, concurrently, so group commit
  //    batches them as under load) with and without the index; synchronous=NORMAL to keep fsync out.
  {
    const count = Number(arg('appends', '20000'));
    for (const indexed of [false, true, false, true]) {
      const path = join(work, `append-${indexed}-${randomUUID().slice(0, 4)}.sqlite`);
      const store = new SqliteEventStore({ path, synchronous: 'NORMAL', index: indexed ? auditEventIndex : undefined });
      const link = { code: 'C1', advocateCustomerId: 1001, advocateEmail: 'a@example.com' };
      const started = performance.now();
      let events = 0;
      for (let i = 0; i < count; i += 100) {
        const work = [];
        for (let j = i; j < i + 100 && j < count; j += 1) {
          const [p, c, , r] = purchaseEvents({ merchantId: 1, widgetId: 10, link, orderId: `o-${j}`, ms: Date.UTC(2026, 0, 1) + j });
          work.push(
            store.append(
              p.stream,
              [
                { type: p.type, data: p.data, metadata: { merchantId: 1 } },
                { type: c.type, data: c.data, metadata: { merchantId: 1 } },
              ],
              'no_stream',
            ),
          );
          work.push(store.append(r.stream, [{ type: r.type, data: r.data, metadata: { merchantId: 1 } }], 'no_stream'));
          events += 3;
        }
        await Promise.all(work);
      }
      const us = ((performance.now() - started) * 1000) / events;
      (results.append ??= { events, microsecondsPerEvent: { without: [], with: [] } }).microsecondsPerEvent[indexed ? 'with' : 'without'].push(
        Math.round(us * 10) / 10,
      );
      await store.close();
    }
  }

  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
rmSync(work, { recursive: true, force: true });
