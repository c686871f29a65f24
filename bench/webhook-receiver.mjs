/**
 * Webhook receiver for the fan-out scenario: a plain node:http server that reads each POST body
 * and answers 200. It counts deliveries (and distinct webhook-ids) and keeps their arrival
 * times and latencies (arrival less the payload's `created_at`, the time the event behind it was
 * recorded: how long a merchant waits to hear of it); GET /__stats answers {count, unique, first,
 * last, byType, perSecond, latency: {p50, p99, max} in ms}.
 * Env: PORT, HOST (127.0.0.1).
 */
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';

let count = 0;
let first = null;
let last = null;
const ids = new Set();
const byType = {};
/** Deliveries per wall-clock second (epoch seconds → count). */
const perSecond = new Map();
/** Milliseconds from each delivered event's recording to its arrival here. */
let latencies = [];

function latencyStats() {
  if (latencies.length === 0) return null;
  const sorted = Float64Array.from(latencies).sort();
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/__stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ count, unique: ids.size, first, last, byType, perSecond: Object.fromEntries(perSecond), latency: latencyStats() }));
    return;
  }
  if (req.method === 'POST' && req.url === '/__reset') {
    count = 0;
    first = last = null;
    ids.clear();
    perSecond.clear();
    latencies = [];
    for (const key of Object.keys(byType)) delete byType[key];
    res.writeHead(200).end();
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const now = Date.now();
    count += 1;
    first ??= now;
    last = now;
    const second = Math.floor(now / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    const id = req.headers['webhook-id'];
    if (id) ids.add(String(id));
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const type = body.type ?? 'unknown';
      byType[type] = (byType[type] ?? 0) + 1;
      const recorded = Date.parse(body.created_at);
      if (Number.isFinite(recorded)) latencies.push(now - recorded);
    } catch {
      byType.unparsable = (byType.unparsable ?? 0) + 1;
    }
    res.writeHead(200).end();
  });
});

server.listen(port, host, () => process.stdout.write(`webhook receiver listening on http://${host}:${server.address().port}\n`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
