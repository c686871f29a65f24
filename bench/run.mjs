/**
 * `npm run bench`: builds the service, copies dist/ into the run directory (so that a rebuild of
 * the shared dist/ during the run cannot mix builds), starts it (node <copy>/main.js, embedded
 * SQLite + in-memory read models, empty temporary DATA_DIR) and a bare Fastify baseline as child processes on
 * loopback, seeds both through HTTP, drives them with autocannon with the same generator
 * settings, and reports throughput, latency, errors, memory, replay speed and webhook fan-out
 * against the targets of issue 7. Writes the table to the terminal, results.json and the
 * children's logs to bench/runs/<stamp>/, and the figures to docs/benchmarks.md.
 *
 * Environment (all optional):
 *   BENCH_DURATION=10          seconds per load scenario
 *   BENCH_CONNECTIONS=1,16,64  connection counts
 *   BENCH_ADVOCATES=1000       seeded advocates (customer + personal link each)
 *   BENCH_MEMORY_SECONDS=30    length of the memory-growth phase (write load at 16 connections, after 5 s of the same load)
 *   BENCH_REPLAY_EVENTS=1000000   events in the replay store
 *   BENCH_WEBHOOK_DRAIN=60     seconds to wait for the webhook backlog after the load
 *   BENCH_PROFILE=1            0: skip the --cpu-prof run of the write path at 16 connections
 *   BENCH_REPLAY_TIMEOUT=200   seconds to wait for the service to come up on the replay store
 *   BENCH_REPLAY_RUNS=3        pairs of start-ups (empty store, then the replay store) the replay figure is the median of
 *   BENCH_BREAKDOWN_EVENTS=40000  events replayed per projection by the read-model breakdown
 *   BENCH_SCENARIOS=write,read,memory,erasure,webhooks,replay,breakdown,profile,external   subset to run
 *   BENCH_SKIP_BUILD=1         use the existing dist/
 *   BENCH_DOCS=0               do not rewrite docs/benchmarks.md
 *   BENCH_KEEP_REPLAY_STORE=<dir>  copy the replay store (events.sqlite and its index) there, for experiments
 *   EVENTSTORE_URL, MONGO_URL  when either is set, the `external` pass runs as well: the same
 *                              write, read and webhook scenarios on a service wired to those servers,
 *                              then `projections:rebuild` of what they wrote (see externalPass below)
 */
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cleanupSync,
  cpuMeter,
  cpuTimeOf,
  freePort,
  installCleanupHandlers,
  makeTempDir,
  memoryOf,
  readIo,
  removeTempDir,
  rssSampler,
  serviceNodeFlags,
  startNode,
  tail,
  waitForHttp,
} from './lib/children.mjs';
import { benchPurchase, call, heapSpacesOf, lookupRequest, metricValue, pool, seedMerchant } from './lib/http.mjs';
import { addDistRoot, summarize } from './profile-summary.mjs';
import { renderMarkdown, renderTerminal } from './report.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const numberEnv = (name, fallback) => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${v}`);
  return n;
};

const CFG = {
  duration: numberEnv('BENCH_DURATION', 10),
  connections: (env.BENCH_CONNECTIONS || '1,16,64').split(',').map((s) => Number(s.trim())),
  advocates: numberEnv('BENCH_ADVOCATES', 1000),
  replayEvents: numberEnv('BENCH_REPLAY_EVENTS', 1_000_000),
  webhookDrainS: numberEnv('BENCH_WEBHOOK_DRAIN', 60),
  breakdownEvents: numberEnv('BENCH_BREAKDOWN_EVENTS', 40_000),
  replayTimeoutS: numberEnv('BENCH_REPLAY_TIMEOUT', 200),
  replayRuns: Math.max(1, numberEnv('BENCH_REPLAY_RUNS', 3)),
  memorySeconds: numberEnv('BENCH_MEMORY_SECONDS', 30),
  emptyRchar: 0,
  profile: env.BENCH_PROFILE !== '0',
  scenarios: new Set((env.BENCH_SCENARIOS || 'write,read,memory,erasure,webhooks,replay,breakdown,profile,external').split(',').map((s) => s.trim())),
  skipBuild: env.BENCH_SKIP_BUILD === '1',
  writeDocs: env.BENCH_DOCS !== '0',
};
if (!CFG.profile) CFG.scenarios.delete('profile');
if (CFG.connections.some((c) => !Number.isInteger(c) || c < 1))
  throw new Error(`BENCH_CONNECTIONS must be positive integers separated by commas, got ${env.BENCH_CONNECTIONS}`);
const UNKNOWN = [...CFG.scenarios].filter((s) => !['write', 'read', 'memory', 'erasure', 'webhooks', 'replay', 'breakdown', 'profile', 'external'].includes(s));
if (UNKNOWN.length) throw new Error(`unknown BENCH_SCENARIOS: ${UNKNOWN.join(', ')}`);
/** The servers of the EventStoreDB/MongoDB mode, from the developer's environment (either or both). */
const EXTERNAL = { eventStoreUrl: env.EVENTSTORE_URL || undefined, mongoUrl: env.MONGO_URL || undefined };
const externalWanted = (env.BENCH_SCENARIOS || '')
  .split(',')
  .map((s) => s.trim())
  .includes('external');
if (externalWanted && !EXTERNAL.eventStoreUrl && !EXTERNAL.mongoUrl) throw new Error('BENCH_SCENARIOS=external needs EVENTSTORE_URL and/or MONGO_URL');
const TARGET_CONNECTIONS = 16;
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const BASELINE_TOKEN = 'bench-baseline-token';
const WARMUP_S = Math.min(3, CFG.duration);

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const RUN_DIR = join(ROOT, 'bench', 'runs', stamp);
/** This run's copy of dist/ (see main()). */
const DIST = join(RUN_DIR, 'dist');
const t0 = performance.now();
const clock = () => `${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s`;
const say = (text) => process.stdout.write(`[${clock()}] ${text}\n`);
const mb = (bytes) => bytes / (1024 * 1024);

// ---------------------------------------------------------------------------------------------
// Processes

function serviceEnv(extra) {
  const e = { ...env };
  // The embedded default: whatever the developer's shell says about external stores is ignored.
  for (const k of ['EVENTSTORE_URL', 'MONGO_URL', 'PUBLIC_BASE_URL', 'PUBLIC_LINK_BASE', 'SMTP_URL', 'METRICS_TOKEN']) delete e[k];
  return {
    ...e,
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // The bench reads the service's memory and queue from /metrics, closed by default.
    METRICS_PUBLIC: 'true',
    ...extra,
  };
}

async function startService(label, { dataDir, nodeArgs = [], timeoutMs = 120_000, sampleMs = 100, extraEnv = {} } = {}) {
  const port = await freePort();
  const spawnedAt = performance.now();
  const handle = startNode({
    name: `service (${label})`,
    args: [...serviceNodeFlags(ROOT), ...nodeArgs, join(DIST, 'main.js')],
    cwd: ROOT,
    env: serviceEnv({ PORT: String(port), DATA_DIR: dataDir, ...extraEnv }),
    logFile: join(RUN_DIR, `service-${label}.log`),
  });
  const startupSampler = rssSampler(handle.pid, sampleMs);
  const readyAt = await waitForHttp(`http://127.0.0.1:${port}/health`, { handle, timeoutMs, intervalMs: 20 });
  const startup = startupSampler.stop();
  return Object.assign(handle, {
    key: 'service',
    label,
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    startupMs: readyAt - spawnedAt,
    startupPeakRss: startup.peak,
    readyRss: startup.last,
  });
}

async function startBaseline() {
  const port = await freePort();
  const handle = startNode({
    name: 'baseline',
    args: [join(ROOT, 'bench', 'baseline-server.mjs')],
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', BASELINE_TOKEN },
    logFile: join(RUN_DIR, 'baseline.log'),
  });
  await waitForHttp(`http://127.0.0.1:${port}/health`, { handle, timeoutMs: 30_000 });
  return Object.assign(handle, { key: 'baseline', url: `http://127.0.0.1:${port}`, port, auth: `Bearer ${BASELINE_TOKEN}` });
}

function build() {
  say('building the service (npm run build)');
  const logFile = join(RUN_DIR, 'build.log');
  const fd = openSync(logFile, 'w');
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status}); ${logFile} ends with:\n${tail(logFile)}`);
}

// ---------------------------------------------------------------------------------------------
// Seeding

async function seedService(target) {
  const { merchant, widget, auth } = await seedMerchant(target.url, `Bearer ${ADMIN_TOKEN}`);
  const started = performance.now();
  const advocates = await pool(
    Array.from({ length: CFG.advocates }, (_, i) => i),
    8,
    async (i) => {
      const accountId = `adv-${i}`;
      const customer = (
        await call(target.url, 'POST', '/v2/customers', { body: { account_id: accountId, email_address: `${accountId}@example.com` }, auth, expect: 201 })
      ).body.customer;
      const link = (
        await call(target.url, 'POST', '/v2/personal_referral_links', { body: { widget_id: widget.id, customer_id: customer.id }, auth, expect: 201 })
      ).body.referral_link;
      return { accountId, customerId: customer.id, code: link.code };
    },
  );
  Object.assign(target, { merchant, widget, auth, codes: advocates.map((a) => a.code), accountIds: advocates.map((a) => a.accountId) });
  return { seconds: (performance.now() - started) / 1000, requests: advocates.length * 2 };
}

async function seedBaseline(target, accountIds, codes) {
  await pool(accountIds, 8, (accountId) =>
    call(target.url, 'POST', '/v2/customers', { body: { account_id: accountId, email_address: `${accountId}@example.com` }, auth: target.auth, expect: 201 }),
  );
  Object.assign(target, { codes, accountIds });
}

// ---------------------------------------------------------------------------------------------
// Load

let orderSeq = 0;
const RUN_TAG = Date.now().toString(36);

/** Request generators, one per kind of load. Each returns autocannon `requests` and a counter of bad answers. */
const KINDS = {
  write: {
    title: 'Write: POST /v2/purchases',
    expectStatus: 201,
    requests(target) {
      const prefix = `${RUN_TAG}-${target.key}-${orderSeq++}`;
      let n = 0;
      const { codes } = target;
      return [
        {
          method: 'POST',
          path: '/v2/purchases',
          headers: { 'content-type': 'application/json', authorization: target.auth },
          setupRequest(req) {
            req.body = JSON.stringify(benchPurchase(`${prefix}-${n++}`, codes));
            return req;
          },
        },
      ];
    },
  },
  list: {
    title: 'Read: GET /v2/purchases?limit=20 following next_page',
    expectStatus: 200,
    requests(target, counters) {
      // Cursors handed from one response to the next request: each in-flight request walks
      // its own chain of pages; a null next_page starts a new walk from the first page.
      const cursors = [];
      return [
        {
          method: 'GET',
          path: '/v2/purchases?limit=20',
          headers: { authorization: target.auth },
          setupRequest(req) {
            req.path = cursors.pop() ?? '/v2/purchases?limit=20';
            if (req.path === '/v2/purchases?limit=20') counters.walks += 1;
            return req;
          },
          onResponse(status, body) {
            if (status !== 200) return;
            const head = body.slice(0, 600);
            const m = /"next_page":(null|"([^"]+)")/.exec(head);
            if (!m) counters.bad += 1;
            else if (m[2]) {
              const url = new URL(m[2]);
              cursors.push(url.pathname + url.search);
            }
            // A page that has a next page is a full one.
            if (m?.[2] && !head.includes('"results_count":20,')) counters.bad += 1;
          },
        },
      ];
    },
  },
  lookup: {
    title: 'Read: GET /v2/customers?account_id=…',
    expectStatus: 200,
    requests(target, counters) {
      const { accountIds } = target;
      return [
        {
          ...lookupRequest(target.auth, accountIds),
          onResponse(status, body) {
            if (status === 200 && !body.includes('"results_count":1')) counters.bad += 1;
          },
        },
      ];
    },
  },
};

async function drive(target, kind, connections, { duration = CFG.duration, amount, quiet = false } = {}) {
  const spec = KINDS[kind];
  const counters = { bad: 0, walks: 0 };
  const sampler = rssSampler(target.pid, 100);
  const cpu = cpuMeter();
  const cpuBefore = cpuTimeOf(target.pid);
  const from = process.hrtime.bigint();
  const result = await autocannon({
    url: target.url,
    connections,
    duration,
    amount,
    pipelining: 1,
    timeout: 30,
    requests: spec.requests(target, counters),
  });
  const to = process.hrtime.bigint();
  const mem = sampler.stop();
  const cpuUse = cpu.stop();
  const cpuAfter = cpuTimeOf(target.pid);
  const codes = result.statusCodeStats ?? {};
  const completed = Object.values(codes).reduce((s, c) => s + c.count, 0);
  const good = codes[spec.expectStatus]?.count ?? 0;
  const otherStatuses = Object.fromEntries(
    Object.entries(codes)
      .filter(([code]) => Number(code) !== spec.expectStatus)
      .map(([code, c]) => [code, c.count]),
  );
  const row = {
    kind,
    target: target.key,
    connections,
    seconds: result.duration,
    requests: completed,
    good,
    rps: completed / result.duration,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors + (completed - good) + counters.bad + result.mismatches,
    connErrors: result.errors,
    timeouts: result.timeouts,
    otherStatuses,
    badBodies: counters.bad,
    peakRss: mem.peak,
    endRss: mem.last,
    cpu: cpuUse,
    // The target's own CPU (all threads) per completed request, in µs: steadier than req/s when the VM is contended.
    cpuUsPerRequest: cpuBefore !== null && cpuAfter !== null && completed > 0 ? ((cpuAfter - cpuBefore) * 1000) / completed : undefined,
    window: { from: Number(from / 1000n), to: Number(to / 1000n) },
  };
  if (!quiet) {
    say(
      `${kind.padEnd(6)} ${target.key.padEnd(8)} c=${String(connections).padStart(2)}: ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  errors ${row.errors}${
        row.errors ? ` ${JSON.stringify({ conn: row.connErrors, statuses: otherStatuses, bad: counters.bad })}` : ''
      }  peak RSS ${mb(row.peakRss).toFixed(0)} MB  other CPU ${cpuUse.otherCores.toFixed(2)} steal ${cpuUse.stealCores.toFixed(2)}`,
    );
  }
  return row;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/** The write scenario on each target at every connection count (targets alternate per count), into `rows`. */
async function writeRows(targets, rows) {
  for (const c of CFG.connections) for (const target of targets) rows.push(await drive(target, 'write', c));
}

/** The read scenarios (paging, lookup) on each target, warmed up, at every connection count, into `rows`. */
async function readRows(targets, rows) {
  if (!CFG.scenarios.has('write')) {
    // Something to page over.
    for (const target of targets) await drive(target, 'write', TARGET_CONNECTIONS, { duration: CFG.duration, quiet: true });
  }
  for (const kind of ['list', 'lookup']) {
    for (const target of targets) await drive(target, kind, TARGET_CONNECTIONS, { duration: WARMUP_S, quiet: true });
    for (const c of CFG.connections) for (const target of targets) rows.push(await drive(target, kind, c));
  }
}

async function metrics(target) {
  try {
    return (await call(target.url, 'GET', '/metrics')).text;
  } catch {
    return '';
  }
}

/**
 * Where a process's memory is, from its /metrics and /proc: V8's young generation (new space),
 * the rest of the V8 heap (old, large-object and code spaces: what the read models hold), and
 * what lies outside the V8 heap, all as committed or resident bytes. The young generation is
 * sized by the allocation rate (up to --max-semi-space-size), not by what is held.
 */
async function memoryComposition(target, pid) {
  const spaces = heapSpacesOf(await metrics(target));
  const rss = memoryOf(pid)?.rss;
  if (rss === undefined || Object.keys(spaces).length === 0) return undefined;
  const heap = Object.values(spaces).reduce((a, b) => a + (b.total ?? 0), 0);
  const young = spaces.new?.total ?? 0;
  return { rss, young, heapElse: heap - young, outsideHeap: rss - heap };
}

/** Events of the given types in the service's store (read-only connection; WAL lets it read while the service writes). */
function storeCount(service, types) {
  const db = new Database(join(service.dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT COUNT(*) AS n FROM events WHERE type IN (${types.map(() => '?').join(', ')})`).get(...types).n;
  } finally {
    db.close();
  }
}

async function settle(ms = 2000) {
  await new Promise((r) => setTimeout(r, ms));
}

/**
 * RSS growth per purchase held in memory. Both readings follow two full garbage collections
 * (the main service runs with bench/experiments/gc-on-signal.mjs, which collects on SIGWINCH),
 * so garbage left by the load, or by the scenario before, is not counted as held. The reading
 * 3 s after the load without a collection is reported too.
 */
async function collectGarbage(service) {
  process.kill(service.pid, 'SIGWINCH');
  await settle(2000);
}

const MEMORY_WARM_UP_SECONDS = 5;

async function memoryPhase(service) {
  // A short write load first, so that V8's young generation has grown to its size under this load
  // (it shrinks while the service is idle or only read from, and grows back within seconds of
  // writing; up to 2 × --max-semi-space-size, whatever is held) before the first reading: the
  // phase measures what each purchase adds, not that one-off step.
  await drive(service, 'write', TARGET_CONNECTIONS, { duration: MEMORY_WARM_UP_SECONDS, quiet: true });
  await settle(3000);
  await collectGarbage(service);
  const before = memoryOf(service.pid);
  const heapBefore = metricValue(await metrics(service), 'nodejs_heap_size_used_bytes');
  const compositionBefore = await memoryComposition(service, service.pid);
  const purchasesBefore = storeCount(service, ['PurchaseRecorded']);
  say(`memory: write load at ${TARGET_CONNECTIONS} connections for ${CFG.memorySeconds} s (RSS before ${mb(before.rss).toFixed(0)} MB, after a full GC)`);
  const row = await drive(service, 'write', TARGET_CONNECTIONS, { duration: CFG.memorySeconds, quiet: true });
  await settle(3000);
  const afterLoad = memoryOf(service.pid);
  await collectGarbage(service);
  const after = memoryOf(service.pid);
  const heapAfter = metricValue(await metrics(service), 'nodejs_heap_size_used_bytes');
  const compositionAfter = await memoryComposition(service, service.pid);
  const purchases = storeCount(service, ['PurchaseRecorded']) - purchasesBefore;
  const per100k = ((after.rss - before.rss) / purchases) * 100_000;
  const afterLoadPer100k = ((afterLoad.rss - before.rss) / purchases) * 100_000;
  const heapPer100k = heapBefore !== undefined && heapAfter !== undefined ? ((heapAfter - heapBefore) / purchases) * 100_000 : undefined;
  say(
    `memory: ${purchases} purchases in ${row.seconds.toFixed(0)} s; RSS ${mb(before.rss).toFixed(0)} → ${mb(afterLoad.rss).toFixed(0)} MB 3 s after the load → ${mb(after.rss).toFixed(0)} MB after a full GC = ${mb(per100k).toFixed(0)} MB per 100,000 purchases (${mb(afterLoadPer100k).toFixed(0)} MB counting garbage not yet collected; errors ${row.errors})`,
  );
  return {
    purchases,
    errors: row.errors,
    seconds: row.seconds,
    rssBefore: before.rss,
    rssAfterLoad: afterLoad.rss,
    rssAfter: after.rss,
    heapBefore,
    heapAfter,
    per100k,
    afterLoadPer100k,
    heapPer100k,
    composition: compositionBefore && compositionAfter ? { before: compositionBefore, after: compositionAfter } : undefined,
    collected: true,
    rps: row.rps,
    p99: row.p99,
  };
}

/** Deliveries the service owes for what it stored: one per conversion and one per decided reward. */
const SOURCES = ['ConversionAttributed', 'RewardApproved', 'RewardRejected'];

/**
 * How many results a v2 list has in all, paged through with the merchant's token: how the
 * external pass counts what it stored (its events are on a server the bench does not read).
 */
async function apiCount(service, path) {
  let next = `${path}?limit=100`;
  let n = 0;
  while (next) {
    const page = (await call(service.url, 'GET', next, { auth: service.auth, expect: 200 })).body;
    n += page.results_count;
    const url = page.next_page ? new URL(page.next_page) : null;
    next = url ? url.pathname + url.search : null;
  }
  return n;
}

/** Webhook sources stored so far: counted in the SQLite file, or through the API for the external pass. */
async function sourceCount(service) {
  if (!service.external) return storeCount(service, SOURCES);
  return (await apiCount(service, '/v2/conversions')) + (await apiCount(service, '/v2/rewards'));
}

/**
 * Webhook fan-out at each of the run's connection counts: one endpoint (every kind) on a local
 * receiver, the write load for the scenario's duration, then the backlog drained. Per count:
 * purchases per second, deliveries per second during the load and to the last delivery, how long
 * a delivery took from its event's recording (p50 / p99, the receiver's clock against the
 * payload's `created_at`), errors (missing or duplicate deliveries too) and peak RSS. The bare
 * fan-out (the same signed POSTs with nothing durable in between) is the baseline, run once.
 */
/**
 * One advocate's personal data erased (POST /v2/user_data/delete, docs/privacy.md) on the store
 * the earlier phases filled: the time from the request to the job's completion, polled every 10 ms,
 * and the job's own times (keys destroyed and read models scrubbed by `erased_at`).
 */
async function erasurePhase(target) {
  const address = `${target.accountIds[0]}@example.com`;
  const started = performance.now();
  const job = (await call(target.url, 'POST', '/v2/user_data/delete', { body: { email_addresses: [address] }, auth: target.auth, expect: 202 })).body
    .user_data_deletion;
  for (;;) {
    const read = (await call(target.url, 'GET', `/v2/user_data/delete/${job.id}`, { auth: target.auth, expect: 200 })).body.user_data_deletion;
    if (read.status === 'completed') {
      const ms = performance.now() - started;
      const at = (iso) => Date.parse(iso);
      say(`erasure: ${address} erased in ${ms.toFixed(0)} ms (${read.documents_scrubbed_count} read-model documents nulled)`);
      return {
        ms,
        documents: read.documents_scrubbed_count,
        customers: read.customers_erased_count,
        toErasedMs: at(read.erased_at) - at(read.created_at),
        toCompletedMs: at(read.completed_at) - at(read.created_at),
      };
    }
    await settle(10);
  }
}

async function webhookPhase(service, writeBaselines) {
  const logSuffix = service.external ? '-external' : '';
  const receiverPort = await freePort();
  const receiver = startNode({
    name: 'webhook receiver',
    args: [join(ROOT, 'bench', 'webhook-receiver.mjs')],
    cwd: ROOT,
    env: { ...env, PORT: String(receiverPort), HOST: '127.0.0.1' },
    logFile: join(RUN_DIR, `webhook-receiver${logSuffix}.log`),
  });
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;
  await waitForHttp(`${receiverUrl}/__stats`, { handle: receiver, timeoutMs: 15_000 });
  const stats = async () => (await call(receiverUrl, 'GET', '/__stats')).body;
  try {
    await call(service.url, 'POST', `/admin/merchants/${service.merchant.id}/webhook_endpoints`, {
      body: { url: `${receiverUrl}/hooks` },
      auth: `Bearer ${ADMIN_TOKEN}`,
      expect: 201,
    });
    await settle(1500);
    // What the purchases and their deliveries hold with the endpoint (the embedded service only:
    // it runs with the gc-on-signal preload and the bench reads its store), after a full GC before
    // the first row and after the last row's drain.
    const reading = async () => {
      if (service.external) return undefined;
      await collectGarbage(service);
      return {
        composition: await memoryComposition(service, service.pid),
        heap: metricValue(await metrics(service), 'nodejs_heap_size_used_bytes'),
        purchases: storeCount(service, ['PurchaseRecorded']),
      };
    };
    const before = await reading();
    const rows = [];
    for (const connections of CFG.connections) {
      await call(receiverUrl, 'POST', '/__reset');
      const writeBaseline = writeBaselines.find((r) => r.connections === connections);
      rows.push(await webhookRow(service, connections, stats, writeBaseline, logSuffix));
    }
    const after = await reading();
    const memory = before?.composition && after?.composition ? webhookMemory(before, after) : undefined;
    if (memory) {
      const { before: b, after: a } = memory.composition;
      say(
        `webhooks: ${memory.purchases} purchases with the endpoint held ${mb(memory.heldPer100k).toFixed(0)} MB of RSS per 100,000 (less the young generation's growth), ${mb(memory.heapPer100k).toFixed(0)} MB of V8 heap used; young generation ${mb(b.young).toFixed(0)} → ${mb(a.young).toFixed(0)} MB, the rest of the V8 heap ${mb(b.heapElse).toFixed(0)} → ${mb(a.heapElse).toFixed(0)} MB, outside it ${mb(b.outsideHeap).toFixed(0)} → ${mb(a.outsideHeap).toFixed(0)} MB`,
      );
    }
    // Bare fan-out baseline: the same number of signed POSTs, 2 in flight, over kept connections.
    const count = Math.max(200, Math.min(Math.max(...rows.map((r) => r.expected)), 5000));
    await call(receiverUrl, 'POST', '/__reset');
    const bare = await new Promise((resolvePromise, reject) => {
      const handle = startNode({
        name: 'bare fan-out',
        args: [join(ROOT, 'bench', 'bare-fanout.mjs')],
        cwd: ROOT,
        env: { ...env, TARGET_URL: `${receiverUrl}/hooks`, COUNT: String(count), CONCURRENCY: '2' },
        logFile: join(RUN_DIR, `bare-fanout${logSuffix}.log`),
        ipc: true,
      });
      handle.child.once('message', resolvePromise);
      handle.exited.then(({ code }) => (code === 0 ? undefined : reject(new Error(`bare fan-out exited ${code}: ${tail(handle.logFile)}`))));
    });
    const bareRate = bare.ok / (bare.ms / 1000);
    const bareLatency = (await stats()).latency;
    say(`webhooks${logSuffix}: bare fan-out baseline ${bare.ok}/${bare.sent} in ${(bare.ms / 1000).toFixed(1)} s = ${bareRate.toFixed(0)} deliveries/s`);
    for (const row of rows) row.deliveryRatio = row.overallRate / bareRate;
    return { rows, bare: { ...bare, rate: bareRate, latency: bareLatency }, memory };
  } finally {
    await receiver.stop(5000);
  }
}

/** Growth per 100,000 purchases between two readings of the webhook phase: RSS less the young generation's, and the V8 heap used. */
function webhookMemory(before, after) {
  const purchases = after.purchases - before.purchases;
  const per100k = (bytes) => (bytes / purchases) * 100_000;
  const rss = after.composition.rss - before.composition.rss;
  const young = after.composition.young - before.composition.young;
  return {
    purchases,
    heldPer100k: per100k(rss - young),
    rssPer100k: per100k(rss),
    heapPer100k: per100k(after.heap - before.heap),
    composition: { before: before.composition, after: after.composition },
  };
}

/** One connection count of the webhook scenario (the endpoint is configured, the receiver reset). */
async function webhookRow(service, connections, stats, writeBaseline, logSuffix) {
  say(`webhooks${logSuffix}: write load at ${connections} connections for ${CFG.duration} s`);
  const sourcesBefore = await sourceCount(service);
  const startedAt = Date.now();
  const row = await drive(service, 'write', connections, { quiet: true });
  const atLoadEnd = await stats();
  await settle(1500); // requests still in flight when autocannon stopped finish, and are delivered too
  // conversion.created + reward.approved per purchase, counted in the store (autocannon does not count cut-off requests).
  const expected = (await sourceCount(service)) - sourcesBefore;
  say(
    `webhooks${logSuffix}: ${row.good} purchases (${row.rps.toFixed(0)}/s, p99 ${row.p99} ms); ${atLoadEnd.count} of ${expected} deliveries arrived during the load`,
  );
  // Drain: wait for every delivery, giving up after BENCH_WEBHOOK_DRAIN seconds.
  const deadline = Date.now() + CFG.webhookDrainS * 1000;
  let current = atLoadEnd;
  const drainSampler = rssSampler(service.pid, 200);
  while (current.count < expected && Date.now() < deadline) {
    await settle(500);
    current = await stats();
  }
  const drainMem = drainSampler.stop();
  const drained = current.count >= expected;
  const lastAt = current.last ?? Date.now();
  const spanS = (lastAt - startedAt) / 1000;
  const duringLoadRate = atLoadEnd.count / row.seconds;
  const overallRate = current.count / Math.max(spanS, 0.001);
  say(
    `webhooks${logSuffix}: ${current.count}/${expected} delivered${drained ? '' : ` (gave up after ${CFG.webhookDrainS} s of drain)`}; ${duringLoadRate.toFixed(0)}/s during the load, ${overallRate.toFixed(0)}/s from load start to last delivery (${spanS.toFixed(1)} s); latency p50 ${current.latency?.p50} ms, p99 ${current.latency?.p99} ms`,
  );
  return {
    connections,
    purchases: row.good,
    rps: row.rps,
    p50: row.p50,
    p99: row.p99,
    errors: row.errors + (drained ? 0 : expected - current.count) + (current.count - current.unique),
    writeErrors: row.errors,
    peakRss: Math.max(row.peakRss, drainMem.peak),
    expected,
    deliveredDuringLoad: atLoadEnd.count,
    delivered: current.count,
    unique: current.unique,
    byType: current.byType,
    latency: current.latency,
    drained,
    spanS,
    duringLoadRate,
    overallRate,
    backlogAtLoadEnd: expected - atLoadEnd.count,
    writeRatio: writeBaseline ? row.rps / writeBaseline.rps : undefined,
  };
}

/** A consistent copy of the seeded store (merchant, widget, advocates, links) and of its subjects' keys, taken while the service runs. */
function snapshotStore(service, into) {
  for (const file of ['events.sqlite', 'events.sqlite-keys']) {
    if (!existsSync(join(service.dataDir, file))) continue;
    const db = new Database(join(service.dataDir, file), { readonly: true, fileMustExist: true });
    try {
      db.prepare('VACUUM INTO ?').run(join(into, file));
    } finally {
      db.close();
    }
  }
}

/** Runs a bench script as a child with IPC and resolves with the one message it sends (rejects if it sends none or fails). */
function childAnswer(name, args, logName) {
  return new Promise((resolvePromise, reject) => {
    const handle = startNode({ name, args, cwd: ROOT, env, logFile: join(RUN_DIR, logName), ipc: true });
    let answer;
    handle.child.once('message', (m) => (answer = m));
    handle.exited.then(({ code }) =>
      code === 0 && answer ? resolvePromise(answer) : reject(new Error(`${name} failed (exit ${code}):\n${tail(handle.logFile)}`)),
    );
  });
}

async function replayPhase({ snapshotDir, referenceDb, emptyReadyRss, emptyComposition, measure = true }) {
  say(`replay: generating a store of ${CFG.replayEvents.toLocaleString('en-US')} events`);
  const generated = await childAnswer(
    'event generator',
    [
      join(ROOT, 'bench', 'gen-events.mjs'),
      '--db',
      join(snapshotDir, 'events.sqlite'),
      '--total',
      String(CFG.replayEvents),
      ...(referenceDb ? ['--reference', referenceDb] : []),
      '--dist',
      DIST,
    ],
    'gen-events.log',
  );
  say(
    `replay: ${generated.total.toLocaleString('en-US')} events (${generated.purchases.toLocaleString('en-US')} purchases over ${generated.advocates} advocates) written in ${(generated.ms / 1000).toFixed(1)} s`,
  );
  if (!measure) return { generated };
  // The generator writes the log only: the audit index (a file of its own) is built once here, as
  // a service that had written those events would have it, so the start-up measures the replay.
  const indexed = await childAnswer(
    'index builder',
    [join(ROOT, 'bench', 'lib', 'build-index.mjs'), '--db', join(snapshotDir, 'events.sqlite'), '--dist', DIST],
    'build-index.log',
  );
  say(
    `replay: audit index built beside the store (${indexed.events ?? 0} events in ${((indexed.ms ?? 0) / 1000).toFixed(1)} s, not counted); starting the service on it`,
  );
  // The replay's time is a start-up on the store less a start-up on an empty store, and the VM's
  // speed drifts over a run by more than the difference between two builds (the same build's replay
  // measured 153,478 and 197,219 events/s back to back): each of REPLAY_RUNS pairs starts the
  // service on an empty store and then on the replay store, one after the other, and the figure is
  // the median pair's. The first pair's start-up on the store also reads memory. Every pair starts
  // on the same files (a start-up appends at most the webhook reactor's checkpoint, one event); a
  // copy per pair left gigabytes for the kernel to write back while the next pairs were timed, and
  // so does the generator: its writes reach the disk before the first pair.
  spawnSync('sync');
  const emptyStartupMs = await timedStartup(`replay-empty-0`, makeTempDir('referral-bench-empty-'));
  // Start the service on the store and wait for its first 200 from /health (it listens only after
  // the in-memory read models have caught up), or for its death, or for the timeout.
  const port = await freePort();
  const fileBytes = statSync(join(snapshotDir, 'events.sqlite')).size;
  const spawnedAt = performance.now();
  const handle = startNode({
    name: 'service (replay)',
    args: replayNodeArgs(),
    cwd: ROOT,
    env: serviceEnv({ PORT: String(port), DATA_DIR: snapshotDir }),
    logFile: join(RUN_DIR, 'service-replay.log'),
  });
  let peakRss = 0;
  let lastRss = 0;
  let rchar = 0;
  const sample = () => {
    const m = memoryOf(handle.pid);
    if (m) {
      lastRss = m.rss;
      peakRss = Math.max(peakRss, m.rss, Number.isNaN(m.hwm) ? 0 : m.hwm);
    }
    rchar = readIo(handle.pid)?.rchar ?? rchar;
  };
  const timer = setInterval(sample, 50);
  let outcome;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/health`, { handle, timeoutMs: CFG.replayTimeoutS * 1000, intervalMs: 20 });
    sample();
    outcome = { status: 'ready', startupMs: performance.now() - spawnedAt };
  } catch (error) {
    sample();
    const elapsedMs = performance.now() - spawnedAt;
    const log = tail(handle.logFile, 40);
    const status = handle.running ? 'timeout' : /heap out of memory|Allocation failed/i.test(log) ? 'out of memory' : 'crashed';
    outcome = { status, elapsedMs, exit: handle.running ? null : await handle.exited, logTail: log.split('\n').slice(-8).join('\n') };
  } finally {
    clearInterval(timer);
  }
  const readyRss = lastRss;
  // What the rebuilt read models hold: RSS after a full collection (replay leaves garbage behind).
  if (outcome.status === 'ready' && handle.running) process.kill(handle.pid, 'SIGWINCH');
  await settle(outcome.status === 'ready' ? 2000 : 0);
  const rssAfter = handle.running ? memoryOf(handle.pid) : null;
  const compositionAfter = handle.running ? await memoryComposition({ url: `http://127.0.0.1:${port}` }, handle.pid) : undefined;
  await handle.stop(30_000);
  const runs = [];
  if (outcome.status === 'ready') {
    runs.push(pairOf(0, emptyStartupMs, outcome.startupMs, generated.total));
    say(
      `replay: pair 1 of ${CFG.replayRuns}: empty store ${(emptyStartupMs / 1000).toFixed(2)} s, replay store ${(outcome.startupMs / 1000).toFixed(2)} s = ${runs[0].eventsPerSecond.toFixed(0)} events/s`,
    );
    for (let run = 1; run < CFG.replayRuns; run += 1) runs.push(await replayPair(run, snapshotDir, generated.total));
  }
  const base = {
    events: generated.total,
    purchases: generated.purchases,
    generated,
    emptyStartupMs,
    emptyReadyRss,
    peakRss,
    status: outcome.status,
    fileBytes,
  };
  if (outcome.status !== 'ready') {
    // How far it got, estimated from the bytes it had read (SQLite pages of the store, beyond an empty start-up).
    const share = Math.min(1, Math.max(0, (rchar - CFG.emptyRchar) / fileBytes));
    const estimatedEvents = Math.round(share * generated.total);
    const seconds = Math.max(0.001, (outcome.elapsedMs - emptyStartupMs) / 1000);
    const result = {
      ...base,
      failed: `${outcome.status} after ${(outcome.elapsedMs / 1000).toFixed(0)} s (RSS ${mb(lastRss).toFixed(0)} MB)`,
      elapsedMs: outcome.elapsedMs,
      lastRss,
      logTail: outcome.logTail,
      estimatedEvents,
      estimatedEventsPerSecond: estimatedEvents / seconds,
      upperBoundEventsPerSecond: outcome.status === 'timeout' ? generated.total / seconds : undefined,
    };
    say(
      `replay: ${result.failed}; about ${estimatedEvents.toLocaleString('en-US')} events read by then (from bytes read) ≈ ${result.estimatedEventsPerSecond.toFixed(0)} events/s; peak RSS ${mb(peakRss).toFixed(0)} MB`,
    );
    return result;
  }
  const median = [...runs].sort((a, b) => a.replayMs - b.replayMs)[Math.floor((runs.length - 1) / 2)];
  const result = {
    ...base,
    runs,
    medianRun: median.run,
    emptyStartupMs: median.emptyStartupMs,
    startupMs: median.startupMs,
    replayMs: median.replayMs,
    eventsPerSecond: median.eventsPerSecond,
    rawEventsPerSecond: generated.total / (median.startupMs / 1000),
    readyRss,
    rssAfter2s: rssAfter?.rss,
    rssPer100kPurchases: (((rssAfter?.rss ?? readyRss) - emptyReadyRss) / generated.purchases) * 100_000,
    // Less the young generation's growth (64 MB to 2 × --max-semi-space-size while the replay
    // allocates): a one-off step, however many purchases the store holds.
    heldPer100kPurchases:
      emptyComposition && compositionAfter
        ? (((rssAfter?.rss ?? readyRss) - emptyReadyRss - (compositionAfter.young - emptyComposition.young)) / generated.purchases) * 100_000
        : undefined,
    // The same growth by where it is (both readings from /metrics and /proc): see memoryComposition.
    composition: emptyComposition && compositionAfter ? { empty: emptyComposition, after: compositionAfter } : undefined,
  };
  say(
    `replay: median of ${runs.length} pairs ${result.eventsPerSecond.toFixed(0)} events/s; first start-up on the store: peak RSS ${mb(peakRss).toFixed(0)} MB, at ready ${mb(readyRss).toFixed(0)} MB`,
  );
  return result;
}

/** The node arguments of every start-up the replay phase times (the same for the empty store and the replay store). */
function replayNodeArgs() {
  return [...serviceNodeFlags(ROOT), '--import', join(ROOT, 'bench', 'experiments', 'gc-on-signal.mjs'), join(DIST, 'main.js')];
}

/** Milliseconds from spawning the service on `dataDir` to its first 200 from /health; the service is stopped after (and an empty `dataDir` removed). */
async function timedStartup(label, dataDir, { keep = false } = {}) {
  const port = await freePort();
  const spawnedAt = performance.now();
  const handle = startNode({
    name: `service (${label})`,
    args: replayNodeArgs(),
    cwd: ROOT,
    env: serviceEnv({ PORT: String(port), DATA_DIR: dataDir }),
    logFile: join(RUN_DIR, `service-${label}.log`),
  });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/health`, { handle, timeoutMs: CFG.replayTimeoutS * 1000, intervalMs: 20 });
    return performance.now() - spawnedAt;
  } finally {
    await handle.stop(30_000);
    if (!keep) removeTempDir(dataDir);
  }
}

function pairOf(run, emptyStartupMs, startupMs, events) {
  const replayMs = startupMs - emptyStartupMs;
  return { run, emptyStartupMs, startupMs, replayMs, eventsPerSecond: events / (replayMs / 1000) };
}

/** One timing pair: a start-up on an empty store, then one on `storeDir` (the replay store, kept). */
async function replayPair(run, storeDir, events) {
  const emptyMs = await timedStartup(`replay-empty-${run}`, makeTempDir('referral-bench-empty-'));
  const storeMs = await timedStartup(`replay-${run}`, storeDir, { keep: true });
  const pair = pairOf(run, emptyMs, storeMs, events);
  say(
    `replay: pair ${run + 1} of ${CFG.replayRuns}: empty store ${(emptyMs / 1000).toFixed(2)} s, replay store ${(storeMs / 1000).toFixed(2)} s = ${pair.eventsPerSecond.toFixed(0)} events/s`,
  );
  return pair;
}

async function breakdownPhase(snapshotDir) {
  const events = Math.min(CFG.breakdownEvents, CFG.replayEvents);
  const profileDir = join(RUN_DIR, 'profile');
  mkdirSync(profileDir, { recursive: true });
  say(`breakdown: replaying the first ${events.toLocaleString('en-US')} events per projection (heap and time of each read model)`);
  const result = await new Promise((resolvePromise, reject) => {
    const handle = startNode({
      name: 'read-model breakdown',
      args: [
        '--expose-gc',
        '--cpu-prof',
        `--cpu-prof-dir=${profileDir}`,
        '--cpu-prof-name=replay.cpuprofile',
        join(ROOT, 'bench', 'read-model-breakdown.mjs'),
        '--db',
        join(snapshotDir, 'events.sqlite'),
        '--events',
        String(events),
        '--dist',
        DIST,
      ],
      cwd: ROOT,
      env,
      logFile: join(RUN_DIR, 'read-model-breakdown.log'),
      ipc: true,
    });
    let answer;
    handle.child.on('message', (m) => (answer = m));
    handle.exited.then(({ code }) =>
      code === 0 && answer ? resolvePromise(answer) : reject(new Error(`read-model breakdown failed (exit ${code}):\n${tail(handle.logFile)}`)),
    );
  });
  const profileFile = join(profileDir, 'replay.cpuprofile');
  if (existsSync(profileFile)) {
    const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
    const fits = result.all.window.from >= profile.startTime && result.all.window.to <= profile.endTime;
    result.profile = { file: relative(ROOT, profileFile), windowed: fits, summary: summarize(profile, fits ? { ...result.all.window, top: 30 } : { top: 30 }) };
  }
  const top = result.perProjection
    .slice(0, 3)
    .map((p) => `${p.name} ${mb(p.heap).toFixed(0)} MB`)
    .join(', ');
  say(
    `breakdown: ${result.purchases.toLocaleString('en-US')} purchases: all read models ${mb(result.all.heap).toFixed(0)} MB of heap, replay ${result.all.eventsPerSecond.toFixed(0)} events/s in-process; largest: ${top}`,
  );
  return result;
}

async function profilePhase() {
  const dataDir = makeTempDir('referral-bench-profile-');
  const profileDir = join(RUN_DIR, 'profile');
  mkdirSync(profileDir, { recursive: true });
  say(`profile: service with --cpu-prof, seeding ${CFG.advocates} advocates`);
  const service = await startService('profile', { dataDir, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-name=service.cpuprofile'] });
  const rows = {};
  try {
    await seedService(service);
    await drive(service, 'write', TARGET_CONNECTIONS, { duration: WARMUP_S, quiet: true });
    for (const kind of ['write', 'list', 'lookup']) {
      rows[kind] = await drive(service, kind, TARGET_CONNECTIONS, { quiet: true });
      say(
        `profile: ${kind} c=${TARGET_CONNECTIONS} under --cpu-prof: ${rows[kind].rps.toFixed(0)} req/s, p99 ${rows[kind].p99} ms, errors ${rows[kind].errors}`,
      );
    }
  } finally {
    const exit = await service.stop(60_000);
    if (exit.code !== 0) say(`profile: the profiled service exited with ${JSON.stringify(exit)}`);
    removeTempDir(dataDir);
  }
  const file = join(profileDir, 'service.cpuprofile');
  if (!existsSync(file)) throw new Error(`no CPU profile at ${file}`);
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const out = { file: relative(ROOT, file), windows: {} };
  for (const [kind, row] of Object.entries(rows)) {
    // The load window, on the same monotonic clock as the profile (µs); whole profile if it does not fit.
    const fits = row.window.from >= profile.startTime && row.window.to <= profile.endTime;
    const summary = summarize(profile, fits ? { from: row.window.from, to: row.window.to, top: 30 } : { top: 30 });
    out.windows[kind] = { windowed: fits, rps: row.rps, p50: row.p50, p99: row.p99, errors: row.errors, summary };
  }
  say(`profile: ${out.file} summarised per load window`);
  return out;
}

/**
 * The EventStoreDB/MongoDB mode (EVENTSTORE_URL and/or MONGO_URL set in the bench's environment):
 * a second service process wired to those servers, under a stream namespace and a database of
 * this run's own (EVENTSTORE_NAMESPACE, MONGO_DATABASE: docs/operations.md), so that a server
 * holding other data is neither read nor changed outside them. It is seeded like the main one and
 * driven by the same write, read and webhook scenarios; ratios are against this run's baseline
 * rows. Then it stops and `projections:rebuild --yes` rebuilds every read model from what those
 * scenarios stored: this mode's replay figure, on this run's events (the 1,000,000-event store of
 * the embedded replay is written to SQLite directly and has no EventStoreDB counterpart). The
 * run's MongoDB database is dropped at the end; its EventStoreDB streams stay, as EventStoreDB has
 * no cheap delete (scavenge as usual). A failure here (a server that does not answer) is reported
 * as this pass's error and does not cost the embedded figures.
 */
async function externalPass(results) {
  const names = { EVENTSTORE_NAMESPACE: `bench-${RUN_TAG}-`, MONGO_DATABASE: `referral_bench_${RUN_TAG}` };
  const storageEnv = {
    ...names,
    ...(EXTERNAL.eventStoreUrl ? { EVENTSTORE_URL: EXTERNAL.eventStoreUrl } : {}),
    ...(EXTERNAL.mongoUrl ? { MONGO_URL: EXTERNAL.mongoUrl } : {}),
  };
  const storage = [
    EXTERNAL.eventStoreUrl ? `EventStoreDB (stream namespace ${names.EVENTSTORE_NAMESPACE})` : 'embedded SQLite',
    EXTERNAL.mongoUrl ? `MongoDB (database ${names.MONGO_DATABASE})` : 'in-memory read models',
  ].join(' + ');
  const out = { storage, rows: [] };
  const dataDir = makeTempDir('referral-bench-external-');
  say(`external: ${storage}`);
  let service;
  try {
    service = await startService('external', { dataDir, extraEnv: storageEnv });
    Object.assign(service, { key: 'external', external: true });
    out.startupMs = service.startupMs;
    const seeded = await seedService(service);
    say(
      `external: up in ${(service.startupMs / 1000).toFixed(1)} s; seeded ${CFG.advocates} advocates (${seeded.requests} requests in ${seeded.seconds.toFixed(1)} s)`,
    );
    await drive(service, 'write', TARGET_CONNECTIONS, { duration: WARMUP_S, quiet: true });
    if (CFG.scenarios.has('write')) await writeRows([service], out.rows);
    if (CFG.scenarios.has('read')) await readRows([service], out.rows);
    if (CFG.scenarios.has('webhooks')) {
      out.webhooks = await webhookPhase(
        service,
        results.rows.filter((r) => r.kind === 'write' && r.target === 'baseline'),
      );
    }
    out.peakRss = memoryOf(service.pid)?.hwm;
    const exit = await service.stop(60_000);
    service = undefined;
    if (exit.code !== 0) throw new Error(`the external service exited with ${JSON.stringify(exit)}`);
    if (CFG.scenarios.has('replay')) out.replay = await externalRebuild(dataDir, storageEnv);
  } catch (error) {
    const text = String(error?.message ?? error);
    // The first line, and the service's own error message when its log is quoted (a server that does not answer).
    const logged = /"message":"([^"\\]{1,200})/.exec(text)?.[1];
    out.failed = `${text.split('\n')[0]}${logged ? ` ${logged}` : ''}`;
    say(`external: failed: ${text.split('\n').slice(0, 12).join('\n')}`);
  } finally {
    if (service) await service.stop(30_000);
    removeTempDir(dataDir);
    if (EXTERNAL.mongoUrl) {
      try {
        await dropDatabase(names.MONGO_DATABASE);
      } catch (error) {
        say(`external: could not drop the MongoDB database ${names.MONGO_DATABASE}: ${error?.message ?? error}`);
      }
    }
  }
  return out;
}

/** `projections:rebuild --yes` on the external pass's storage: events replayed, events/s, peak RSS. */
async function externalRebuild(dataDir, storageEnv) {
  say('external: projections:rebuild --yes of everything the scenarios stored');
  const handle = startNode({
    name: 'rebuild (external)',
    args: [...serviceNodeFlags(ROOT), join(DIST, 'operations', 'rebuild-cli.js'), '--yes'],
    cwd: ROOT,
    env: serviceEnv({ DATA_DIR: dataDir, ...storageEnv }),
    logFile: join(RUN_DIR, 'rebuild-external.log'),
  });
  const sampler = rssSampler(handle.pid, 100);
  const timer = setTimeout(() => void handle.stop(5000), CFG.replayTimeoutS * 1000);
  const exit = await handle.exited;
  clearTimeout(timer);
  const mem = sampler.stop();
  const m = /replayed ([\d,]+) events up to position \d+ in ([\d.]+) s \(([\d,]+) events\/s\)/.exec(readFileSync(handle.logFile, 'utf8'));
  if (exit.code !== 0 || !m)
    throw new Error(`projections:rebuild failed (exit ${JSON.stringify(exit)}); ${handle.logFile} ends with:\n${tail(handle.logFile)}`);
  const result = { events: Number(m[1].replace(/,/g, '')), seconds: Number(m[2]), eventsPerSecond: Number(m[3].replace(/,/g, '')), peakRss: mem.peak };
  say(
    `external: rebuilt every read model from ${result.events.toLocaleString('en-US')} events in ${result.seconds} s = ${result.eventsPerSecond.toLocaleString('en-US')} events/s; peak RSS ${mb(result.peakRss).toFixed(0)} MB`,
  );
  return result;
}

async function dropDatabase(name) {
  const { MongoClient } = await import('mongodb');
  const client = await MongoClient.connect(EXTERNAL.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}

// ---------------------------------------------------------------------------------------------

/** Keeps the `keep` most recent run directories under bench/runs (logs, profiles, dist copies are large). */
function pruneRuns(keep) {
  const runs = join(ROOT, 'bench', 'runs');
  const dirs = readdirSync(runs, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^\d{4}-\d{2}-\d{2}T/.test(d.name))
    .map((d) => d.name)
    .sort();
  for (const name of dirs.slice(0, Math.max(0, dirs.length - keep))) rmSync(join(runs, name), { recursive: true, force: true });
}

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  let commit = 'unknown';
  let dirtyFiles = [];
  try {
    // Read-only git queries: which commit was built, and which tracked files differed from it.
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    dirtyFiles = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3));
  } catch {
    /* not a git checkout */
  }
  const pkg = (name) => {
    try {
      return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      return '?';
    }
  };
  return {
    cpu: model,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    memoryGiB: os.totalmem() / 1024 ** 3,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    date: new Date().toISOString(),
    commit,
    dirtyFiles,
    versions: { fastify: pkg('fastify'), autocannon: pkg('autocannon'), nest: pkg('@nestjs/core'), betterSqlite3: pkg('better-sqlite3') },
  };
}

async function main() {
  installCleanupHandlers();
  mkdirSync(RUN_DIR, { recursive: true });
  say(
    `bench run ${stamp}: ${CFG.duration} s per scenario, connections ${CFG.connections.join('/')}, ${CFG.advocates} advocates; logs in ${relative(ROOT, RUN_DIR)}`,
  );
  const results = { config: { ...CFG, scenarios: [...CFG.scenarios] }, machine: machine(), rows: [], started: new Date().toISOString() };
  if (!CFG.skipBuild) build();
  if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error('dist/main.js is missing: run without BENCH_SKIP_BUILD=1');
  // Every service process of the run starts from this copy of the build: a rebuild of dist/ by
  // someone else while the run goes on (a shared working tree) cannot mix two builds in one report.
  cpSync(join(ROOT, 'dist'), DIST, { recursive: true });
  addDistRoot(DIST);
  results.build = { commit: results.machine.commit, copiedAt: new Date().toISOString(), dist: relative(ROOT, DIST) };

  const needsMain = ['write', 'read', 'memory', 'erasure', 'webhooks', 'replay', 'breakdown'].some((s) => CFG.scenarios.has(s));
  let service;
  let baseline;
  let snapshotDir;
  if (needsMain) {
    const dataDir = makeTempDir('referral-bench-data-');
    // The preload only collects garbage on SIGWINCH, so the memory phase reads what is held.
    service = await startService('main', { dataDir, nodeArgs: ['--import', join(ROOT, 'bench', 'experiments', 'gc-on-signal.mjs')] });
    results.emptyStartup = {
      ms: service.startupMs,
      rss: service.readyRss,
      rchar: readIo(service.pid)?.rchar,
      composition: await memoryComposition(service, service.pid),
    };
    CFG.emptyRchar = results.emptyStartup.rchar ?? 0;
    say(`service up on ${service.url} in ${(service.startupMs / 1000).toFixed(1)} s (empty store, RSS ${mb(service.readyRss).toFixed(0)} MB)`);
    baseline = await startBaseline();
    say(`baseline up on ${baseline.url}`);
    const seeded = await seedService(service);
    await seedBaseline(baseline, service.accountIds, service.codes);
    say(`seeded ${CFG.advocates} advocates with personal links (${seeded.requests} requests in ${seeded.seconds.toFixed(1)} s)`);
    if (CFG.scenarios.has('replay') || CFG.scenarios.has('breakdown')) {
      snapshotDir = makeTempDir('referral-bench-replay-');
      snapshotStore(service, snapshotDir);
    }
  }

  const rowsOf = (kind) => results.rows.filter((r) => r.kind === kind);

  if (CFG.scenarios.has('write')) {
    say(`warm-up: ${WARMUP_S} s of writes on each`);
    for (const target of [baseline, service]) await drive(target, 'write', TARGET_CONNECTIONS, { duration: WARMUP_S, quiet: true });
    await settle(1000);
    results.writeStartRss = memoryOf(service.pid).rss;
    await writeRows([baseline, service], results.rows);
    results.writeEndRss = memoryOf(service.pid).rss;
  }
  if (CFG.scenarios.has('read')) await readRows([baseline, service], results.rows);
  if (CFG.scenarios.has('memory')) results.memory = await memoryPhase(service);
  if (CFG.scenarios.has('erasure')) results.erasure = await erasurePhase(service);
  if (CFG.scenarios.has('webhooks')) {
    results.webhooks = await webhookPhase(
      service,
      rowsOf('write').filter((r) => r.target === 'baseline'),
    );
  }
  if (baseline) await baseline.stop(5000);
  let referenceDb;
  if (service) {
    results.mainServicePeakRss = memoryOf(service.pid)?.hwm;
    await service.stop();
    referenceDb = join(service.dataDir, 'events.sqlite');
    results.mainStoreEvents = new Database(referenceDb, { readonly: true }).prepare('SELECT COUNT(*) AS n FROM events').get().n;
  }
  if (snapshotDir) {
    results.replay = await replayPhase({
      snapshotDir,
      referenceDb,
      emptyReadyRss: results.emptyStartup.rss,
      emptyComposition: results.emptyStartup.composition,
      measure: CFG.scenarios.has('replay'),
    });
    if (CFG.scenarios.has('breakdown')) results.breakdown = await breakdownPhase(snapshotDir);
    if (!CFG.scenarios.has('replay')) delete results.replay;
    if (env.BENCH_KEEP_REPLAY_STORE) {
      mkdirSync(env.BENCH_KEEP_REPLAY_STORE, { recursive: true });
      for (const file of readdirSync(snapshotDir).filter((name) => name.startsWith('events.sqlite')))
        cpSync(join(snapshotDir, file), join(env.BENCH_KEEP_REPLAY_STORE, file));
    }
    removeTempDir(snapshotDir);
  }
  if (service) removeTempDir(service.dataDir);
  if (CFG.scenarios.has('external')) {
    results.external = EXTERNAL.eventStoreUrl || EXTERNAL.mongoUrl ? await externalPass(results) : { skipped: 'EVENTSTORE_URL and MONGO_URL unset' };
  }
  if (CFG.scenarios.has('profile')) results.profile = await profilePhase();

  results.finished = new Date().toISOString();
  results.wallSeconds = (performance.now() - t0) / 1000;
  writeFileSync(join(RUN_DIR, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const { text, verdicts } = renderTerminal(results);
  process.stdout.write(`\n${text}\n`);
  if (CFG.writeDocs) {
    const docs = join(ROOT, 'docs', 'benchmarks.md');
    writeFileSync(docs, renderMarkdown(results, existsSync(docs) ? readFileSync(docs, 'utf8') : undefined));
    say(`wrote ${relative(ROOT, docs)} and ${relative(ROOT, join(RUN_DIR, 'results.json'))}`);
  }
  pruneRuns(5);
  say(`done in ${results.wallSeconds.toFixed(0)} s`);
  // Exit status: 0 when the harness ran; the targets' verdicts are in the report (a miss is a finding, not a harness failure).
  return verdicts.some((v) => v.pass === false) ? 0 : 0;
}

main()
  .then((code) => {
    cleanupSync();
    process.exit(code);
  })
  .catch((error) => {
    process.stderr.write(`\nbench failed: ${error?.stack ?? error}\n`);
    cleanupSync();
    process.exit(1);
  });
