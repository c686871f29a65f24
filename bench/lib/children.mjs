/**
 * Child processes and temporary directories of a bench run, and their cleanup: every child is
 * stopped (SIGTERM, then SIGKILL) and every temp dir removed when the run ends, fails, or is
 * interrupted (Ctrl-C, SIGTERM, SIGHUP, an uncaught error). Also: free ports, /proc memory
 * readings, waiting for an HTTP endpoint to answer.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The V8 flags `npm start` gives the service (package.json's start script, `[exec] node <flags> dist/main.js`),
 * so that every benchmark runs the service as users run it.
 */
export function serviceNodeFlags(root) {
  const start = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;
  const match = /^(?:exec )?node((?: --\S+)*) dist\/main\.js$/.exec(start);
  if (!match) throw new Error(`package.json's start script is not "[exec] node [--flags] dist/main.js": ${start}`);
  return match[1].split(' ').filter(Boolean);
}

const children = new Set();
const tempDirs = new Set();
const exitHooks = [];

/** A fresh directory under the OS temp dir, removed at the end of the run whatever happens. */
export function makeTempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Runs `fn` synchronously at exit (after children are killed). */
export function onExit(fn) {
  exitHooks.push(fn);
}

/** Kills whatever is still running and removes the temp dirs. Synchronous: safe in 'exit'. */
export function cleanupSync() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
  children.clear();
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
  tempDirs.clear();
  for (const fn of exitHooks.splice(0)) {
    try {
      fn();
    } catch {
      /* best effort */
    }
  }
}

let installed = false;
/** Cleanup on normal exit, on an uncaught error and on SIGINT / SIGTERM / SIGHUP. */
export function installCleanupHandlers() {
  if (installed) return;
  installed = true;
  process.on('exit', cleanupSync);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal} received, stopping children and removing temp dirs\n`);
      cleanupSync();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  process.on('uncaughtException', (error) => {
    process.stderr.write(`bench: uncaught error: ${error?.stack ?? error}\n`);
    cleanupSync();
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => {
    process.stderr.write(`bench: unhandled rejection: ${error?.stack ?? error}\n`);
    cleanupSync();
    process.exit(1);
  });
}

/** A port that was free a moment ago on 127.0.0.1 (listen on 0, read it, close). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node <args>` with stdout and stderr appended to `logFile`. The returned handle has
 * `exited` (a promise of {code, signal}) and `stop()`: SIGTERM, then SIGKILL after `graceMs`.
 */
export function startNode({ name, args, env, logFile, cwd, ipc = false }) {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd,
    env,
    stdio: ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  closeSync(fd);
  children.add(child);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    name,
    child,
    pid: child.pid,
    logFile,
    exited,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    async stop(graceMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** Pids of the children still running. */
export function childPids() {
  return [...children].filter((c) => c.exitCode === null && c.signalCode === null).map((c) => c.pid);
}

const PF_KTHREAD = 0x00200000;

/** Every process's parent, kernel-thread flag and CPU ticks (utime + stime + reaped children's cutime + cstime). */
function processTable() {
  const table = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), {
        ppid: Number(f[1]),
        kthread: (Number(f[6]) & PF_KTHREAD) !== 0,
        ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
      });
    } catch {
      /* gone meanwhile */
    }
  }
  return table;
}

/** CPU ticks of the user-space processes outside this process's tree (other sessions' builds and tests). */
function foreignTicks() {
  const table = processTable();
  const ours = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, p] of table) {
      if (!ours.has(pid) && ours.has(p.ppid)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const [pid, p] of table) if (!ours.has(pid) && !p.kthread) ticks += p.ticks;
  return ticks;
}

/**
 * How much CPU other user-space processes (outside the bench's own process tree; kernel threads,
 * which include the work our own fsyncs and loopback traffic cause, are not counted) and the
 * hypervisor (steal, from /proc/stat) took while a scenario ran, in cores. Ticks are USER_HZ (100 a second).
 */
export function cpuMeter() {
  const read = () => {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { steal: f[7] ?? 0, foreign: foreignTicks(), at: performance.now() };
  };
  const start = read();
  return {
    stop() {
      const end = read();
      const seconds = (end.at - start.at) / 1000;
      const cores = (ticks) => Math.max(0, ticks) / 100 / seconds;
      return { otherCores: cores(end.foreign - start.foreign), stealCores: cores(end.steal - start.steal) };
    },
  };
}

/**
 * CPU time a process has used so far (user + system, all its threads), in milliseconds, from
 * /proc/<pid>/stat; null once it is gone. The difference over a load window divided by the
 * requests served is a per-request cost that CPU steal and the load generator do not distort.
 */
export function cpuTimeOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at ") "; utime and stime are the 12th and 13th of them.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** CPU milliseconds (user + system) of each thread of a process, by thread id; empty once it is gone. */
export function threadCpu(pid) {
  const out = new Map();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) out.set(Number(tid), cpuTimeOf(`${pid}/task/${tid}`) ?? 0);
  } catch {
    // the process has exited
  }
  return out;
}

/** The last `lines` lines of a file (for error messages). */
export function tail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** VmRSS and VmHWM (peak RSS) of a process in bytes, from /proc/<pid>/status; null once it is gone. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    const rss = kb('VmRSS');
    // An exiting (zombie) process has no memory lines left.
    if (Number.isNaN(rss)) return null;
    return { rss, hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

/** /proc/<pid>/io counters (rchar: bytes read through read()/pread(), page cache included); null once gone. */
export function readIo(pid) {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return Object.fromEntries(
      io
        .trim()
        .split('\n')
        .map((line) => line.split(': '))
        .map(([k, v]) => [k, Number(v)]),
    );
  } catch {
    return null;
  }
}

/** Polls VmRSS every `intervalMs`; `peak` is the highest reading so far (and VmHWM's growth is not needed). */
export function rssSampler(pid, intervalMs = 100) {
  let peak = 0;
  let last = 0;
  const sample = () => {
    const m = memoryOf(pid);
    if (m) {
      last = m.rss;
      if (m.rss > peak) peak = m.rss;
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    get peak() {
      return peak;
    },
    get last() {
      return last;
    },
    stop() {
      sample();
      clearInterval(timer);
      return { peak, last };
    },
  };
}

/**
 * Polls `url` until it answers 200, the child exits, or `timeoutMs` passes. Resolves with the
 * time (ms, from performance.now()) of the first 200.
 */
export async function waitForHttp(url, { handle, timeoutMs = 60_000, intervalMs = 50 } = {}) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (handle && !handle.running) {
      throw new Error(`${handle.name} exited before ${url} answered; its log ends with:\n${tail(handle.logFile)}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now();
    } catch {
      /* not listening yet */
    }
    if (performance.now() > deadline) {
      throw new Error(`${url} did not answer 200 within ${timeoutMs} ms${handle ? `; ${handle.name}'s log ends with:\n${tail(handle.logFile)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
