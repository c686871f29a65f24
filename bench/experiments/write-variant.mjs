/**
 * Experiment (not part of `npm run bench`): the write path at 16 connections against one build
 * of the service, e.g. a copy of dist/ with a change, or with fsync disabled through eatmydata.
 * Seeds 1,000 advocates, warms up 3 s, drives POST /v2/purchases for --seconds, prints one JSON line.
 *
 *   node bench/experiments/write-variant.mjs <label> <path/to/main.js> [--seconds 15] [--eatmydata] [--prof] [--gc] [--smaps] [--compact] [--idle N]
 *
 * --eatmydata preloads Debian's libeatmydata (apt-get install eatmydata): fsync becomes a no-op.
 * --compact runs the service with V8's --compact-on-every-full-gc (how much of the old generation
 * after a collection is free space between live objects, and what compacting it costs).
 * --smaps prints which memory mappings of the service grew during the load (after --gc's collection):
 * V8's pages, malloc arenas of the threads, SQLite's shared memory, and so on.
 * --prof runs the service under --cpu-prof into bench/runs/experiments/<label>/ and prints the load window
 * (give it to bench/profile-summary.mjs as --from/--to).
 */
import autocannon from 'autocannon';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTimeOf, threadCpu, freePort, installCleanupHandlers, makeTempDir, memoryOf, serviceNodeFlags, startNode, waitForHttp } from '../lib/children.mjs';
import { experimentArgs } from '../lib/args.mjs';
import { benchPurchase, heapSpacesOf, metricValue, seedAdvocates, seedMerchant } from '../lib/http.mjs';

/** Resident kB of each mapping of a process, keyed by its address range and name. */
function mappings(pid) {
  const out = new Map();
  let key;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      key = `${head[1]} ${head[3] || '[anon]'}`;
      out.set(key, { name: head[3] || '[anon]', kb: 0, size: (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1024 });
    } else if (key && line.startsWith('Rss:')) out.get(key).kb = Number(line.split(/\s+/)[1]);
  }
  return out;
}

/** Resident growth in MB per 100,000 requests by kind of mapping (anonymous ones by their size). */
function mappingGrowth(before, after, requests) {
  const kinds = {};
  for (const [key, m] of after) {
    const grew = m.kb - (before.get(key)?.kb ?? 0);
    const kind = m.name !== '[anon]' ? m.name.replace(/^.*\//, '') : `anon ${m.size >= 1024 ? `${Math.round(m.size / 1024)} MB` : `${m.size} kB`}`;
    kinds[kind] = (kinds[kind] ?? 0) + grew;
  }
  for (const [key, m] of before) if (!after.has(key)) kinds[`gone ${m.name}`] = (kinds[`gone ${m.name}`] ?? 0) - m.kb;
  return Object.fromEntries(
    Object.entries(kinds)
      .map(([k, kb]) => [k, Math.round((kb / 1024 / requests) * 100_000)])
      .filter(([, mb]) => mb !== 0)
      .sort((a, b) => b[1] - a[1]),
  );
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
installCleanupHandlers();
const { label, main, flag, option } = experimentArgs(
  'node bench/experiments/write-variant.mjs <label> <main.js> [--seconds 15] [--eatmydata] [--prof] [--gc] [--smaps] [--compact] [--idle N]',
);
const seconds = option('seconds', 15);
const outDir = join(ROOT, 'bench', 'runs', 'experiments', label);
mkdirSync(outDir, { recursive: true });

const port = await freePort();
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: makeTempDir('bench-variant-'),
  ADMIN_TOKEN: 'bench-admin',
  LOG_LEVEL: 'warn',
  METRICS_PUBLIC: 'true',
};
for (const k of ['EVENTSTORE_URL', 'MONGO_URL', 'PUBLIC_BASE_URL']) delete env[k];
if (flag('eatmydata')) env.LD_PRELOAD = '/usr/lib/x86_64-linux-gnu/libeatmydata.so';
const nodeArgs = flag('prof') ? ['--cpu-prof', `--cpu-prof-dir=${outDir}`, '--cpu-prof-name=service.cpuprofile'] : [];
// --gc: collect garbage (SIGWINCH to the gc-on-signal preload) before each memory reading.
if (flag('gc')) nodeArgs.push('--import', join(ROOT, 'bench', 'experiments', 'gc-on-signal.mjs'));
// --compact: V8 compacts the old generation at every full collection (the measured forced ones too).
if (flag('compact')) nodeArgs.push('--compact-on-every-full-gc');
const collect = async () => {
  if (!flag('gc')) return;
  process.kill(service.pid, 'SIGWINCH');
  await new Promise((r) => setTimeout(r, 1500));
};
const service = startNode({ name: label, args: [...serviceNodeFlags(ROOT), ...nodeArgs, resolve(main)], cwd: ROOT, env, logFile: join(outDir, 'service.log') });
const url = `http://127.0.0.1:${port}`;
await waitForHttp(`${url}/health`, { handle: service });

const { widget, auth } = await seedMerchant(url, 'Bearer bench-admin', { name: 'Variant shop' });
const codes = (
  await seedAdvocates(
    url,
    auth,
    widget.id,
    [...Array(1000).keys()].map((i) => `adv-${i}`),
  )
).map((a) => a.code);

let n = 0;
const requests = [
  {
    method: 'POST',
    path: '/v2/purchases',
    headers: { 'content-type': 'application/json', authorization: auth },
    setupRequest(req) {
      req.body = JSON.stringify(benchPurchase(`o-${n++}`, codes));
      return req;
    },
  },
];
await autocannon({ url, connections: 16, duration: 3, requests });
/** Each V8 heap space's committed and used MB, from /metrics. */
async function heapSpaces() {
  const spaces = heapSpacesOf(await (await fetch(`${url}/metrics`)).text());
  return Object.fromEntries(
    Object.entries(spaces).map(([space, sizes]) => [space, { total: Math.round(sizes.total / 1048576), used: Math.round(sizes.used / 1048576) }]),
  );
}
const heapOf = async () => metricValue(await (await fetch(`${url}/metrics`)).text(), 'nodejs_heap_size_used_bytes');
await collect();
const rssBefore = memoryOf(service.pid).rss;
const heapBefore = await heapOf();
const mapsBefore = flag('smaps') ? mappings(service.pid) : undefined;
const spacesBefore = flag('smaps') ? await heapSpaces() : undefined;
const from = Number(process.hrtime.bigint() / 1000n);
const cpuBefore = cpuTimeOf(service.pid);
const threadsBefore = threadCpu(service.pid);
const result = await autocannon({ url, connections: 16, duration: seconds, requests });
const cpuMs = cpuTimeOf(service.pid) - cpuBefore;
const threadsAfter = threadCpu(service.pid);
// CPU per request of each busy thread (main thread first): which thread the path loads.
const perThread = [...threadsAfter]
  .map(([tid, ms]) => ({ tid, main: tid === service.pid, us: Math.round(((ms - (threadsBefore.get(tid) ?? 0)) * 1000) / result.requests.total) }))
  .filter((t) => t.us >= 5)
  .sort((a, b) => Number(b.main) - Number(a.main) || b.us - a.us)
  .map((t) => (t.main ? `main ${t.us}` : `${t.us}`));
const to = Number(process.hrtime.bigint() / 1000n);
await new Promise((r) => setTimeout(r, 2000));
await collect();
const rssAfter = memoryOf(service.pid).rss;
const heapAfter = await heapOf();
const mapsGrowth = mapsBefore ? mappingGrowth(mapsBefore, mappings(service.pid), result.requests.total) : undefined;
const spacesAfter = flag('smaps') ? await heapSpaces() : undefined;
// --idle N: how RSS and the V8 heap settle over N idle seconds after the load (V8's memory
// reducer runs full collections once allocation stops), one sample a second.
const idle = [];
for (let i = 0; flag('idle') && i < option('idle', 0); i += 1) {
  await new Promise((r) => setTimeout(r, 1000));
  const heap = await heapOf();
  idle.push({ s: i + 1, rssMB: Math.round(memoryOf(service.pid).rss / 1048576), heapMB: Math.round(heap / 1048576) });
}
await service.stop();
const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, c]) => [code, c.count]));
process.stdout.write(
  `${JSON.stringify({
    label,
    rps: Math.round(result.requests.total / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    // Service CPU (every thread) per request: steadier than req/s when the VM's CPU is contended.
    cpuUsPerRequest: Math.round((cpuMs * 1000) / result.requests.total),
    cpuUsPerRequestByThread: perThread,
    connectionErrors: result.errors,
    statuses,
    rssGrowthMBPer100k: Math.round((((rssAfter - rssBefore) / result.requests.total) * 100_000) / 1048576),
    heapGrowthMBPer100k: Math.round((((heapAfter - heapBefore) / result.requests.total) * 100_000) / 1048576),
    ...(mapsGrowth ? { mappingsGrowthMBPer100k: mapsGrowth, heapSpacesMB: { before: spacesBefore, after: spacesAfter } } : {}),
    ...(idle.length ? { rssBeforeMB: Math.round(rssBefore / 1048576), idle } : {}),
    ...(flag('prof') ? { profile: join(outDir, 'service.cpuprofile'), window: { from, to } } : {}),
  })}\n`,
);
