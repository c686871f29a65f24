// Run by node --expose-gc (test/e2e/sandbox-limits.e2e-spec.ts): starts the built service with its
// sandbox, resets it `count` times through POST /admin/sandbox/reset, and prints one JSON line per
// sample of the heap after a forced collection. Usage: node --expose-gc <this> <dist> <dataDir> <count> <every>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, dataDir, count, every] = process.argv.slice(2);
const { createApp } = await import(pathToFileURL(join(dist, 'app.js')).href);
const { loadConfig } = await import(pathToFileURL(join(dist, 'platform/config.js')).href);
const config = { ...loadConfig({ ADMIN_TOKEN: 'reset-heap-admin', SANDBOX_ENABLED: 'true', DATA_DIR: dataDir }), eventStoreUrl: undefined, mongoUrl: undefined };
const app = await createApp({ config, logger: false });
await app.listen(0, '127.0.0.1');
const url = `http://127.0.0.1:${app.getHttpServer().address().port}`;

async function heap() {
  // Several passes: a generation closed just now may still sit behind a finaliser or a microtask.
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage().heapUsed;
}

console.log(JSON.stringify({ reset: 0, heapUsed: await heap() }));
for (let n = 1; n <= Number(count); n++) {
  const response = await fetch(`${url}/admin/sandbox/reset`, { method: 'POST', headers: { authorization: 'Bearer reset-heap-admin' } });
  const generation = (await response.json()).sandbox.generation;
  if (response.status !== 200 || generation !== n + 1) throw new Error(`reset ${n} answered ${response.status}, generation ${generation}`);
  if (n % Number(every) === 0) console.log(JSON.stringify({ reset: n, heapUsed: await heap() }));
}
await app.close();
