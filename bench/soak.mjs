/**
 * `npm run soak` (issue 8; a script, not a CI test): drives a mixed load at about 70 % of the
 * measured write capacity for a set time and reports, per window, errors (must be 0), latency
 * percentiles and the service's RSS, then judges whether memory levels off.
 *
 * The embedded read models hold every record in memory, so RSS grows with the data written;
 * a leak shows as memory per write that keeps rising window after window. The verdict compares
 * the RSS growth per 1,000 writes of the last windows with the first ones.
 *
 * Environment: SOAK_SECONDS (default 300), SOAK_WINDOW (30), SOAK_RATE (requests/s; default:
 * 70 % of the write capacity measured first), BENCH_SKIP_BUILD=1 to use the existing dist/.
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { installCleanupHandlers, makeTempDir, memoryOf, removeTempDir, serviceNodeFlags, startNode, waitForHttp, freePort } from './lib/children.mjs';
import { call, pool } from './lib/http.mjs';

const seconds = Number(process.env.SOAK_SECONDS || 300);
const windowSeconds = Number(process.env.SOAK_WINDOW || 30);
const root = new URL('..', import.meta.url).pathname;
installCleanupHandlers();

function run(options) {
  return new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))));
}

async function main() {
  if (process.env.BENCH_SKIP_BUILD !== '1') execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  const dir = makeTempDir('referral-soak-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const admin = 'Bearer soak-admin-token';
  const service = startNode({
    name: 'service',
    args: [...serviceNodeFlags(root), join(root, 'dist/main.js')],
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: join(dir, 'data'),
      ADMIN_TOKEN: 'soak-admin-token',
      LOG_LEVEL: 'warn',
      SANDBOX_ENABLED: 'false',
    },
    logFile: join(dir, 'service.log'),
  });
  try {
    await waitForHttp(`${base}/health`, { handle: service });
    const merchant = (await call(base, 'POST', '/admin/merchants', { body: { name: 'Soak' }, auth: admin, expect: 201 })).body.merchant;
    const widget = (
      await call(base, 'POST', `/admin/merchants/${merchant.id}/widgets`, {
        body: { name: 'W', reward_type: 'fixed_cash', reward_amount: 5 },
        auth: admin,
        expect: 201,
      })
    ).body.widget;
    const token = `Bearer ${(await call(base, 'POST', '/v2/tokens/merchant', { body: { access_key: merchant.access_key, secret_key: merchant.secret_key }, expect: 200 })).body.token}`;
    const advocates = await pool(
      Array.from({ length: 200 }, (_, i) => i),
      8,
      async (i) => {
        const customer = (await call(base, 'POST', '/v2/customers', { body: { account_id: `soak-${i}` }, auth: token, expect: 201 })).body.customer;
        const link = (
          await call(base, 'POST', '/v2/personal_referral_links', { body: { widget_id: widget.id, customer_id: customer.id }, auth: token, expect: 201 })
        ).body.referral_link;
        return { code: link.code, accountId: `soak-${i}` };
      },
    );
    let order = 0;
    const headers = { authorization: token, 'content-type': 'application/json' };
    const getHeaders = { authorization: token };
    const purchase = () => ({
      method: 'POST',
      path: '/v2/purchases',
      headers,
      body: JSON.stringify({ order_id: `soak-${++order}`, referral_code: advocates[order % advocates.length].code, payment_amount: 50 }),
    });
    const mixed = [
      { weight: 6, make: purchase },
      { weight: 2, make: () => ({ method: 'GET', path: '/v2/purchases?limit=20', headers: getHeaders }) },
      { weight: 1, make: () => ({ method: 'GET', path: `/v2/customers?account_id=${advocates[order % advocates.length].accountId}`, headers: getHeaders }) },
      { weight: 1, make: () => ({ method: 'POST', path: '/v2/customers', headers, body: JSON.stringify({ account_id: `soak-new-${++order}` }) }) },
    ];
    const totalWeight = mixed.reduce((s, m) => s + m.weight, 0);
    const next = () => {
      let pick = Math.random() * totalWeight;
      for (const m of mixed) if ((pick -= m.weight) < 0) return m.make();
      return mixed[0].make();
    };

    let rate = Number(process.env.SOAK_RATE || 0);
    if (!rate) {
      const capacity = await run({ url: base, connections: 16, duration: 5, requests: [{ setupRequest: (req) => ({ ...req, ...purchase() }) }] });
      rate = Math.max(1, Math.floor(capacity.requests.average * 0.7));
      console.log(`write capacity ${Math.round(capacity.requests.average)} req/s; soaking at ${rate} req/s for ${seconds} s`);
    }
    const rows = [];
    for (let elapsed = 0; elapsed < seconds; elapsed += windowSeconds) {
      const before = memoryOf(service.pid)?.rss ?? 0;
      const writesBefore = order;
      const result = await run({
        url: base,
        connections: 16,
        duration: windowSeconds,
        overallRate: rate,
        requests: [{ setupRequest: (req) => ({ ...req, ...next() }) }],
      });
      const after = memoryOf(service.pid)?.rss ?? 0;
      const errors = result.errors + result.timeouts + result.non2xx;
      if (errors > 0) console.log('errors:', { errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx, statusCodes: result.statusCodeStats });
      rows.push({
        window: rows.length + 1,
        rps: Math.round(result.requests.average),
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors,
        rssMB: Math.round(after / 1e6),
        mbPer1kWrites: (((after - before) / 1e6) * 1000) / Math.max(1, order - writesBefore),
      });
      console.log(rows[rows.length - 1]);
    }
    console.table(rows.map((r) => ({ ...r, mbPer1kWrites: r.mbPer1kWrites.toFixed(2) })));
    const third = Math.max(1, Math.floor(rows.length / 3));
    const avg = (xs) => xs.reduce((s, r) => s + r.mbPer1kWrites, 0) / xs.length;
    const early = avg(rows.slice(0, third));
    const late = avg(rows.slice(-third));
    const errors = rows.reduce((s, r) => s + r.errors, 0);
    const levelsOff = late <= early * 1.5 + 0.05;
    console.log(
      `errors: ${errors} (must be 0); memory per 1,000 writes: first windows ${early.toFixed(2)} MB, last windows ${late.toFixed(2)} MB -> ${levelsOff ? 'levels off' : 'keeps growing: possible leak'}`,
    );
    process.exitCode = errors === 0 && levelsOff ? 0 : 1;
  } finally {
    await service.stop();
    removeTempDir(dir);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
