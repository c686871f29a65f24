/**
 * Experiment (not part of `npm run bench`): the read path at 16 connections against one build
 * of the service. Seeds 1,000 advocates and --purchases purchases (through POST /v2/purchases),
 * then drives GET /v2/purchases?limit=20 following next_page ("list") and
 * GET /v2/customers?account_id= ("lookup") for --seconds each, and prints one JSON line per kind.
 *
 *   node bench/experiments/read-variant.mjs <label> <path/to/main.js> [--seconds 10] [--purchases 5000] [--prof] [--kinds list,lookup]
 *
 * --kinds runs the kinds in the order given (a kind may come twice: before and after another). It also takes "byid" (GET /v2/customers/<id>: the same pipeline with no query to validate and
 * no list) and "health" (GET /health: no authentication, no read model), to see where the floor is.
 *
 * --prof runs the service under --cpu-prof into bench/runs/experiments/<label>/ and prints each
 * load window (give it to bench/profile-summary.mjs as --from/--to).
 */
import autocannon from 'autocannon';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTimeOf, freePort, installCleanupHandlers, makeTempDir, serviceNodeFlags, startNode, threadCpu, waitForHttp } from '../lib/children.mjs';
import { experimentArgs } from '../lib/args.mjs';
import { call, lookupRequest, pool, seedAdvocates, seedMerchant } from '../lib/http.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
installCleanupHandlers();
const { label, main, flag, option } = experimentArgs('node bench/experiments/read-variant.mjs <label> <main.js> [--seconds 10] [--purchases 5000] [--prof]');
const seconds = option('seconds', 10);
const purchases = option('purchases', 5000);
const at = process.argv.indexOf('--kinds');
const wanted = (at >= 0 ? process.argv[at + 1] : 'list,lookup').split(',');
const outDir = join(ROOT, 'bench', 'runs', 'experiments', label);
mkdirSync(outDir, { recursive: true });

const port = await freePort();
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: makeTempDir('bench-read-variant-'),
  ADMIN_TOKEN: 'bench-admin',
  LOG_LEVEL: 'warn',
};
for (const k of ['EVENTSTORE_URL', 'MONGO_URL', 'PUBLIC_BASE_URL']) delete env[k];
const nodeArgs = flag('prof') ? ['--cpu-prof', `--cpu-prof-dir=${outDir}`, '--cpu-prof-name=service.cpuprofile'] : [];
const service = startNode({ name: label, args: [...serviceNodeFlags(ROOT), ...nodeArgs, resolve(main)], cwd: ROOT, env, logFile: join(outDir, 'service.log') });
const url = `http://127.0.0.1:${port}`;
await waitForHttp(`${url}/health`, { handle: service });

const { widget, auth } = await seedMerchant(url, 'Bearer bench-admin', { name: 'Read variant shop' });
const accounts = [...Array(1000).keys()].map((i) => `adv-${i}`);
const advocates = await seedAdvocates(url, auth, widget.id, accounts);
const customerIds = advocates.map((a) => a.customerId);
const codes = advocates.map((a) => a.code);
await pool([...Array(purchases).keys()], 16, (i) =>
  call(url, 'POST', '/v2/purchases', {
    body: { order_id: `o-${i}`, referral_code: codes[i % codes.length], payment_amount: 49.5, new_customer: 'yes', email_address: `friend-${i}@example.net` },
    auth,
    expect: 201,
  }),
);

const kinds = {
  list: () => {
    const cursors = [];
    return {
      method: 'GET',
      path: '/v2/purchases?limit=20',
      headers: { authorization: auth },
      setupRequest(req) {
        req.path = cursors.pop() ?? '/v2/purchases?limit=20';
        return req;
      },
      onResponse(status, body) {
        const m = /"next_page":"([^"]+)"/.exec(body.slice(0, 600));
        if (m) {
          const next = new URL(m[1]);
          cursors.push(next.pathname + next.search);
        }
      },
    };
  },
  lookup: () => lookupRequest(auth, accounts),
  byid: () => ({
    method: 'GET',
    path: `/v2/customers/${customerIds[0]}`,
    headers: { authorization: auth },
    setupRequest(req) {
      req.path = `/v2/customers/${customerIds[Math.floor(Math.random() * customerIds.length)]}`;
      return req;
    },
  }),
  health: () => ({ method: 'GET', path: '/health' }),
};
for (const [kind, request] of wanted.map((kind) => [kind, kinds[kind]])) {
  await autocannon({ url, connections: 16, duration: 3, requests: [request()] });
  const from = Number(process.hrtime.bigint() / 1000n);
  const cpuBefore = cpuTimeOf(service.pid);
  const threadsBefore = threadCpu(service.pid);
  const result = await autocannon({ url, connections: 16, duration: seconds, requests: [request()] });
  const cpuMs = cpuTimeOf(service.pid) - cpuBefore;
  // The main thread's share, and the other threads' (the writer, the audit index, V8's and libuv's): a
  // thread still busy with earlier writes shows here, not in the requests' own cost.
  let mainMs = 0;
  for (const [tid, ms] of threadCpu(service.pid)) if (tid === service.pid) mainMs = ms - (threadsBefore.get(tid) ?? 0);
  const to = Number(process.hrtime.bigint() / 1000n);
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, c]) => [code, c.count]));
  process.stdout.write(
    `${JSON.stringify({
      label,
      kind,
      rps: Math.round(result.requests.total / result.duration),
      p50: result.latency.p50,
      p99: result.latency.p99,
      cpuUsPerRequest: Math.round((cpuMs * 1000) / result.requests.total),
      mainThreadUsPerRequest: Math.round((mainMs * 1000) / result.requests.total),
      statuses,
      ...(flag('prof') ? { window: { from, to } } : {}),
    })}\n`,
  );
}
await service.stop();
if (flag('prof')) process.stdout.write(`${JSON.stringify({ profile: join(outDir, 'service.cpuprofile') })}\n`);
