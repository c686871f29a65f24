/**
 * Experiment (not part of `npm run bench`): every purchase on ONE advocate's referral code, 16
 * connections, four rounds of 10 s. The advocate's reward ledger grows by one event per purchase
 * and is read whole by each; all purchases contend on that one stream. Prints one JSON line a round
 * with the statuses seen (409 = "the resource was changed concurrently").
 *
 *   node bench/experiments/hot-advocate.mjs [path/to/main.js]     (default: dist/main.js)
 */
import autocannon from 'autocannon';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, installCleanupHandlers, makeTempDir, serviceNodeFlags, startNode, waitForHttp } from '../lib/children.mjs';
import { call, seedMerchant } from '../lib/http.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
installCleanupHandlers();
const main = resolve(process.argv[2] ?? join(ROOT, 'dist', 'main.js'));
const port = await freePort();
const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: makeTempDir('bench-hot-'), ADMIN_TOKEN: 'bench-admin', LOG_LEVEL: 'warn' };
for (const k of ['EVENTSTORE_URL', 'MONGO_URL', 'PUBLIC_BASE_URL']) delete env[k];
const service = startNode({ name: 'hot advocate', args: [...serviceNodeFlags(ROOT), main], cwd: ROOT, env, logFile: join(env.DATA_DIR, 'service.log') });
const url = `http://127.0.0.1:${port}`;
await waitForHttp(`${url}/health`, { handle: service });
const { widget, auth } = await seedMerchant(url, 'Bearer bench-admin', { name: 'Hot shop' });
const star = (await call(url, 'POST', '/v2/customers', { body: { account_id: 'star', email_address: 'star@example.com' }, auth, expect: 201 })).body.customer;
const code = (await call(url, 'POST', '/v2/personal_referral_links', { body: { widget_id: widget.id, customer_id: star.id }, auth, expect: 201 })).body
  .referral_link.code;

let n = 0;
let conflictBody;
const requests = [
  {
    method: 'POST',
    path: '/v2/purchases',
    headers: { 'content-type': 'application/json', authorization: auth },
    setupRequest(req) {
      const i = n++;
      req.body = JSON.stringify({
        order_id: `o-${i}`,
        referral_code: code,
        payment_amount: 49.5,
        new_customer: 'yes',
        email_address: `friend-${i}@example.net`,
      });
      return req;
    },
    onResponse(status, body) {
      if (status === 409 && conflictBody === undefined) conflictBody = body;
    },
  },
];
let rewarded = 0;
for (let round = 1; round <= 4; round += 1) {
  const result = await autocannon({ url, connections: 16, duration: 10, requests });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([s, c]) => [s, c.count]));
  process.stdout.write(
    `${JSON.stringify({ round, rewardsBefore: rewarded, rps: Math.round(result.requests.total / result.duration), p50: result.latency.p50, p99: result.latency.p99, statuses })}\n`,
  );
  rewarded += statuses['201'] ?? 0;
}
if (conflictBody) process.stdout.write(`first 409 body: ${conflictBody}\n`);
await service.stop();
