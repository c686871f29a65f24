/**
 * Experiment (not part of `npm run bench`): the write path at 16 connections against one build
 * of the service, e.g. a copy of dist/ with a change, or with fsync disabled through eatmydata.
 * Seeds 1,000 advocates, warms up 3 s, drives POST /v2/purchases for --seconds, prints one JSON line.
 *
 *   node bench/experiments/write-variant.mjs <label> <path/to/main.js> [--seconds 15] [--eatmydata] [--prof]
 *
 * --eatmydata preloads Debian's libeatmydata (apt-get install eatmydata): fsync becomes a no-op.
 * --prof runs the service under --cpu-prof into bench/runs/experiments/<label>/ and prints the load window
 * (give it to bench/profile-summary.mjs as --from/--to).
 */
import autocannon from 'autocannon';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTimeOf, threadCpu, freePort, installCleanupHandlers, makeTempDir, memoryOf, serviceNodeFlags, startNode, waitForHttp } from '../lib/children.mjs';
import { experimentArgs } from '../lib/args.mjs';
import { call, metricValue, pool, seedMerchant } from '../lib/http.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
installCleanupHandlers();
const { label, main, flag, option } = experimentArgs('node bench/experiments/write-variant.mjs <label> <main.js> [--seconds 15] [--eatmydata] [--prof]');
const seconds = option('seconds', 15);
const outDir = join(ROOT, 'bench', 'runs', 'experiments', label);
mkdirSync(outDir, { recursive: true });

const port = await freePort();
const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: makeTempDir('bench-variant-'), ADMIN_TOKEN: 'bench-admin', LOG_LEVEL: 'warn' };
for (const k of ['EVENTSTORE_URL', 'MONGO_URL', 'PUBLIC_BASE_URL']) delete env[k];
if (flag('eatmydata')) env.LD_PRELOAD = '/usr/lib/x86_64-linux-gnu/libeatmydata.so';
const nodeArgs = flag('prof') ? ['--cpu-prof', `--cpu-prof-dir=${outDir}`, '--cpu-prof-name=service.cpuprofile'] : [];
// --gc: collect garbage (SIGWINCH to the gc-on-signal preload) before each memory reading.
if (flag('gc')) nodeArgs.push('--import', join(ROOT, 'bench', 'experiments', 'gc-on-signal.mjs'));
const collect = async () => {
  if (!flag('gc')) return;
  process.kill(service.pid, 'SIGWINCH');
  await new Promise((r) => setTimeout(r, 1500));
};
const service = startNode({ name: label, args: [...serviceNodeFlags(ROOT), ...nodeArgs, resolve(main)], cwd: ROOT, env, logFile: join(outDir, 'service.log') });
const url = `http://127.0.0.1:${port}`;
await waitForHttp(`${url}/health`, { handle: service });

const { widget, auth } = await seedMerchant(url, 'Bearer bench-admin', { name: 'Variant shop' });
const codes = await pool([...Array(1000).keys()], 8, async (i) => {
  const customer = (await call(url, 'POST', '/v2/customers', { body: { account_id: `adv-${i}`, email_address: `adv-${i}@example.com` }, auth, expect: 201 })).body.customer;
  return (await call(url, 'POST', '/v2/personal_referral_links', { body: { widget_id: widget.id, customer_id: customer.id }, auth, expect: 201 })).body.referral_link.code;
});

let n = 0;
const requests = [
  {
    method: 'POST',
    path: '/v2/purchases',
    headers: { 'content-type': 'application/json', authorization: auth },
    setupRequest(req) {
      const i = n++;
      req.body = JSON.stringify({ order_id: `o-${i}`, referral_code: codes[Math.floor(Math.random() * codes.length)], payment_amount: 49.5, new_customer: 'yes', email_address: `friend-${i}@example.net`, ip_address: '198.51.100.7' });
      return req;
    },
  },
];
await autocannon({ url, connections: 16, duration: 3, requests });
const heapOf = async () => metricValue(await (await fetch(`${url}/metrics`)).text(), 'nodejs_heap_size_used_bytes');
await collect();
const rssBefore = memoryOf(service.pid).rss;
const heapBefore = await heapOf();
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
    ...(idle.length ? { rssBeforeMB: Math.round(rssBefore / 1048576), idle } : {}),
    ...(flag('prof') ? { profile: join(outDir, 'service.cpuprofile'), window: { from, to } } : {}),
  })}\n`,
);
