/**
 * Times a service build's start-up on a copy of a replay store: node bench/experiments/replay-variant.mjs
 * <label> <dist>/main.js --store <events.sqlite> [--runs N] [--prof]. Each run copies the store (and its
 * `-index` file, if any: bench/lib/build-index.mjs makes one) into a fresh temporary DATA_DIR, starts the build, waits for its first 200 from /health, and prints the seconds, the CPU seconds (every thread, and the main thread's) and RSS;
 * --prof adds --cpu-prof (main thread) with the profile in bench/runs/experiments/; --flags "<node flags>" adds node flags after the start script's.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cpuTimeOf,
  freePort,
  installCleanupHandlers,
  makeTempDir,
  memoryOf,
  removeTempDir,
  serviceNodeFlags,
  startNode,
  threadCpu,
  waitForHttp,
} from '../lib/children.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [label, main] = process.argv.slice(2);
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const store = arg('store');
const runs = Number(arg('runs', '1'));
const prof = process.argv.includes('--prof');
const extraFlags = (arg('flags') ?? '').split(' ').filter(Boolean);
if (!label || !main || !store) throw new Error('usage: replay-variant.mjs <label> <dist>/main.js --store <events.sqlite> [--runs N] [--prof]');
installCleanupHandlers();

for (let run = 0; run < runs; run += 1) {
  const dataDir = makeTempDir('replay-variant-');
  copyFileSync(store, join(dataDir, 'events.sqlite'));
  // The audit index beside it, when there is one (else the build under test makes it at open, and that is timed too).
  if (existsSync(`${store}-index`)) copyFileSync(`${store}-index`, join(dataDir, 'events.sqlite-index'));
  const port = await freePort();
  const profDir = join(ROOT, 'bench', 'runs', 'experiments');
  mkdirSync(profDir, { recursive: true });
  const flags = [
    ...serviceNodeFlags(ROOT),
    ...extraFlags,
    ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=replay-${label}.cpuprofile`] : []),
  ];
  const started = performance.now();
  const handle = startNode({
    name: `service ${label}`,
    args: [...flags, resolve(main)],
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, ADMIN_TOKEN: 'replay-variant-admin-token-000000', LOG_LEVEL: 'warn' },
    logFile: join(dataDir, 'service.log'),
  });
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, memoryOf(handle.pid)?.rss ?? 0)), 50);
  await waitForHttp(`http://127.0.0.1:${port}/health`, { handle, timeoutMs: 300_000, intervalMs: 20 });
  const seconds = (performance.now() - started) / 1000;
  // CPU time to ready moves far less with the VM's steal than wall time: all threads, and the main thread's.
  const cpuSeconds = (cpuTimeOf(handle.pid) ?? 0) / 1000;
  const mainCpuSeconds = (threadCpu(handle.pid).get(handle.pid) ?? 0) / 1000;
  clearInterval(timer);
  const rss = memoryOf(handle.pid)?.rss ?? 0;
  await handle.stop(30_000);
  removeTempDir(dataDir);
  console.log(
    JSON.stringify({
      label,
      run,
      seconds: Number(seconds.toFixed(2)),
      cpuSeconds: Number(cpuSeconds.toFixed(2)),
      mainCpuSeconds: Number(mainCpuSeconds.toFixed(2)),
      rssMb: Math.round(rss / 2 ** 20),
      peakRssMb: Math.round(peak / 2 ** 20),
    }),
  );
}
