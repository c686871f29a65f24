/**
 * The built service as a child process, for the tests that need a real process (signals,
 * kill -9). The project is compiled once per content of src/ into node_modules/.cache, so the
 * working tree's dist/ is never touched.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_TOKEN } from './service.js';

const root = resolve('.');

/**
 * The service compiled from src/ as it is now, resolvable as ESM with the project's node_modules;
 * returns the dist path. Compiled once per content of src/ and the tsconfigs (kept by their hash in
 * node_modules/.cache, inside this clone, so its imports resolve to this clone's packages and
 * `npm ci` clears it), so the test files that need a process share one build. `work` is the test's
 * own directory, which the build no longer needs.
 */
export async function buildService(_work?: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(join(root, 'src')), join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json')]) {
    hash.update(file.slice(root.length)).update('\0').update(readFileSync(file)).update('\0');
  }
  const cache = join(root, 'node_modules', '.cache', 'referral-test-build', hash.digest('hex').slice(0, 20));
  const dist = join(cache, 'dist');
  if (existsSync(join(dist, 'main.js'))) return dist;
  // Built beside, then renamed into place: a build cut short is never taken for a whole one.
  const building = `${cache}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  writeFileSync(join(building, 'package.json'), JSON.stringify({ type: 'module' }));
  await promisify(execFile)(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', join(building, 'dist')],
    {
      cwd: root,
      timeout: 120_000,
    },
  );
  try {
    renameSync(building, cache);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another run put the same build in place first
  }
  return dist;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => (entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
}

export interface RunningService {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment of a service process: 127.0.0.1, a port the OS picks, JSON logs, no sandbox unless `env` says. */
function serviceEnv(dataDir: string, env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_MS: '10000',
    SANDBOX_ENABLED: 'false',
    ...env,
  };
}

/** Starts `node <dist>/main.js` on a port the OS picks and reads it from the JSON start-up line. */
export async function startServiceProcess(dist: string, dataDir: string, env: Record<string, string> = {}): Promise<RunningService> {
  const child = spawn(process.execPath, [join(dist, 'main.js')], {
    env: serviceEnv(dataDir, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const line = out.split('\n').find((l) => l.includes('listening on http'));
    if (line) {
      const port = (JSON.parse(line) as { port: number }).port;
      return { child, url: `http://127.0.0.1:${port}`, stdout: () => out, stderr: () => err, exited };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `node <dist>/main.js` as startServiceProcess would, for a start that is expected to be refused: its exit and output (killed after 60 s). */
export async function startRefused(dist: string, dataDir: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(dist, 'main.js')], { env: serviceEnv(dataDir, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((done) => child.on('close', (exitCode) => done(exitCode)));
  clearTimeout(timer);
  return { code, output };
}

export interface HttpReply {
  status: number;
  body: any;
  text: string;
}

/** One JSON request to a running service. */
export async function send(url: string, method: string, path: string, body?: unknown, auth?: string): Promise<HttpReply> {
  const response = await fetch(url + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(auth ? { authorization: auth } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}
