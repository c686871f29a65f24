/**
 * Baseline of the webhook scenario: sends N signed JSON POSTs to the receiver the way the
 * service's dispatcher does per endpoint (at most 2 in flight, connections kept open between
 * requests, HMAC-SHA1 + Standard Webhooks HMAC-SHA256 signatures), with nothing durable in
 * between. Reports {sent, ok, failed, ms} over IPC, then exits.
 * Env: TARGET_URL, COUNT, CONCURRENCY (2).
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';

const url = new URL(process.env.TARGET_URL);
const total = Number(process.env.COUNT ?? 1000);
const concurrency = Number(process.env.CONCURRENCY ?? 2);
const secretKey = 'sk_baselinebaselinebaselinebaseline';
// As the service's outbound client (src/webhooks/delivery/outbound-http.ts): keep-alive, 4 s idle.
const agent = new http.Agent({ keepAlive: true, timeout: 4000 });

function payload(i) {
  const id = randomUUID();
  const now = new Date().toISOString();
  return {
    id,
    body: JSON.stringify({
      id,
      type: i % 2 === 0 ? 'conversion.created' : 'reward.approved',
      created_at: now,
      data: {
        conversion_id: 28765424406529 + i,
        purchase_id: 28765424406528 + i,
        widget_id: 28765423110144,
        referral_code: '4czz76eh',
        coupon_code: null,
        channel: 'personal_url',
        source: { type: 'referral_link', referral_code: '4czz76eh' },
        advocate_customer_id: 28765423757312,
        advocate_email_address: 'adv-1@example.com',
        friend_customer_id: null,
        friend_email_address: `friend-${i}@example.net`,
        created_at: now,
      },
    }),
  };
}

function send(i) {
  const { id, body } = payload(i);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'bench-bare-fanout/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'X-SERVICE-SIGNATURE': createHmac('sha1', secretKey).update(body).digest('base64'),
    'webhook-signature': `v1,${createHmac('sha256', Buffer.from(secretKey, 'utf8')).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
    'Content-Length': String(Buffer.byteLength(body)),
  };
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

let next = 0;
let ok = 0;
let failed = 0;
const started = performance.now();
async function worker() {
  while (next < total) {
    const i = next++;
    if (await send(i)) ok += 1;
    else failed += 1;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
process.send?.({ sent: total, ok, failed, ms });
process.disconnect?.();
