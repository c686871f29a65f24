/**
 * Experiment (not part of `npm run bench`): webhook deliveries draining with no request load,
 * against one build of the service. Seeds 100 advocates, points one endpoint (every kind) at the
 * bench's receiver, records --purchases purchases through POST /v2/purchases at 16 connections,
 * then times the drain from the end of the writes to the last delivery and prints one JSON line:
 * deliveries per second, the service's CPU per delivery (per thread) and the receiver's latencies.
 *
 *   node bench/experiments/webhook-variant.mjs <label> <path/to/main.js> [--purchases 5000] [--connections 16] [--seconds S] [--prof] [--gc]
 *
 * --connections and --seconds set the write load (a duration instead of --purchases): its
 * purchases/s and latency with the endpoint are reported too.
 *
 * --gc reads the service's RSS and V8 heap after a full collection (the gc-on-signal preload)
 * once the advocates are seeded and again after the drain: what the purchases and their
 * deliveries hold, per 100,000 purchases.
 *
 * --prof runs the service under --cpu-prof into bench/runs/experiments/<label>/ and prints the
 * drain window (give it to bench/profile-summary.mjs as --from/--to).
 */
import autocannon from 'autocannon';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTimeOf, freePort, installCleanupHandlers, makeTempDir, memoryOf, serviceNodeFlags, startNode, threadCpu, waitForHttp } from '../lib/children.mjs';
import { experimentArgs } from '../lib/args.mjs';
import { call, metricValue, seedAdvocates, seedMerchant } from '../lib/http.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
installCleanupHandlers();
const { label, main, flag, option } = experimentArgs(
  'node bench/experiments/webhook-variant.mjs <label> <main.js> [--purchases 5000] [--connections 16] [--seconds S] [--prof] [--gc]',
);
const purchases = option('purchases', 5000);
const outDir = join(ROOT, 'bench', 'runs', 'experiments', label);
mkdirSync(outDir, { recursive: true });

const receiverPort = await freePort();
const receiver = startNode({
  name: 'webhook receiver',
  args: [join(ROOT, 'bench', 'webhook-receiver.mjs')],
  cwd: ROOT,
  env: { ...process.env, PORT: String(receiverPort), HOST: '127.0.0.1' },
  logFile: join(outDir, 'receiver.log'),
});
const receiverUrl = `http://127.0.0.1:${receiverPort}`;
await waitForHttp(`${receiverUrl}/__stats`, { handle: receiver });
const stats = async () => (await call(receiverUrl, 'GET', '/__stats')).body;

const port = await freePort();
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: makeTempDir('bench-webhook-variant-'),
  ADMIN_TOKEN: 'bench-admin',
  LOG_LEVEL: 'warn',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  METRICS_PUBLIC: 'true',
};
for (const k of ['EVENTSTORE_URL', 'MONGO_URL', 'PUBLIC_BASE_URL']) delete env[k];
const nodeArgs = flag('prof') ? ['--cpu-prof', `--cpu-prof-dir=${outDir}`, '--cpu-prof-name=service.cpuprofile'] : [];
if (flag('gc')) nodeArgs.push('--import', join(ROOT, 'bench', 'experiments', 'gc-on-signal.mjs'));
const service = startNode({ name: label, args: [...serviceNodeFlags(ROOT), ...nodeArgs, resolve(main)], cwd: ROOT, env, logFile: join(outDir, 'service.log') });
const url = `http://127.0.0.1:${port}`;
await waitForHttp(`${url}/health`, { handle: service });

const { merchant, widget, auth } = await seedMerchant(url, 'Bearer bench-admin', { name: 'Webhook variant shop' });
const codes = (
  await seedAdvocates(
    url,
    auth,
    widget.id,
    [...Array(100).keys()].map((i) => `adv-${i}`),
  )
).map((a) => a.code);
await call(url, 'POST', `/admin/merchants/${merchant.id}/webhook_endpoints`, {
  body: { url: `${receiverUrl}/hooks` },
  auth: 'Bearer bench-admin',
  expect: 201,
});
await new Promise((r) => setTimeout(r, 1000));
await call(receiverUrl, 'POST', '/__reset');

/** RSS and V8 heap used after a full collection (--gc only). */
async function memory() {
  if (!flag('gc')) return undefined;
  process.kill(service.pid, 'SIGWINCH');
  await new Promise((r) => setTimeout(r, 1500));
  const text = await (await fetch(`${url}/metrics`)).text();
  return {
    rss: memoryOf(service.pid).rss,
    heap: metricValue(text, 'nodejs_heap_size_used_bytes'),
    committed: metricValue(text, 'nodejs_heap_size_total_bytes'),
  };
}
const memoryBefore = await memory();

let n = 0;
// --connections / --seconds: the write load itself is what is looked at (purchases/s with the endpoint).
const writeSeconds = option('seconds', 0);
const written = await autocannon({
  url,
  connections: option('connections', 16),
  ...(writeSeconds > 0 ? { duration: writeSeconds } : { amount: purchases }),
  requests: [
    {
      method: 'POST',
      path: '/v2/purchases',
      headers: { 'content-type': 'application/json', authorization: auth },
      setupRequest(req) {
        const i = n++;
        req.body = JSON.stringify({
          order_id: `o-${i}`,
          referral_code: codes[i % codes.length],
          payment_amount: 49.5,
          email_address: `friend-${i}@example.net`,
        });
        return req;
      },
    },
  ],
});
// Two deliveries a purchase: conversion.created and reward.approved.
const expected = written.requests.total * 2;
const from = Number(process.hrtime.bigint() / 1000n);
const cpuBefore = cpuTimeOf(service.pid);
const threadsBefore = threadCpu(service.pid);
const atStart = (await stats()).count;
let current = await stats();
const deadline = Date.now() + 120_000;
while (current.count < expected && Date.now() < deadline) {
  await new Promise((r) => setTimeout(r, 100));
  current = await stats();
}
const to = Number(process.hrtime.bigint() / 1000n);
const drained = current.count - atStart;
const cpuMs = cpuTimeOf(service.pid) - cpuBefore;
const threadsAfter = threadCpu(service.pid);
const memoryAfter = await memory();
const perThread = [...threadsAfter]
  .map(([tid, ms]) => ({ tid, main: tid === service.pid, us: Math.round(((ms - (threadsBefore.get(tid) ?? 0)) * 1000) / Math.max(drained, 1)) }))
  .filter((t) => t.us >= 5)
  .sort((a, b) => Number(b.main) - Number(a.main) || b.us - a.us)
  .map((t) => (t.main ? `main ${t.us}` : `${t.us}`));
await service.stop();
await receiver.stop(5000);
process.stdout.write(
  `${JSON.stringify({
    label,
    purchases: written.requests.total,
    writeRps: Math.round(written.requests.average),
    writeP50: written.latency.p50,
    writeP99: written.latency.p99,
    expected,
    delivered: current.count,
    unique: current.unique,
    duringWrites: atStart,
    drainRate: Math.round(drained / ((to - from) / 1e6)),
    cpuUsPerDelivery: Math.round((cpuMs * 1000) / Math.max(drained, 1)),
    cpuUsPerDeliveryByThread: perThread,
    latency: current.latency,
    ...(memoryAfter
      ? {
          rssMBPer100kPurchases: Math.round(((memoryAfter.rss - memoryBefore.rss) / 1048576 / written.requests.total) * 100_000),
          heapMBPer100kPurchases: Math.round(((memoryAfter.heap - memoryBefore.heap) / 1048576 / written.requests.total) * 100_000),
          mb: Object.fromEntries(['rss', 'committed', 'heap'].map((k) => [k, [memoryBefore[k], memoryAfter[k]].map((v) => Math.round(v / 1048576))])),
        }
      : {}),
    ...(flag('prof') ? { profile: join(outDir, 'service.cpuprofile'), window: { from, to } } : {}),
  })}\n`,
);
