/**
 * Aggregates a V8 .cpuprofile (node --cpu-prof) by self time: per function (name + file:line),
 * per file, and per area (service code, a node_modules package, Node internals, GC, idle).
 * Lines in dist/*.js are mapped back to src/*.ts through the build's source maps.
 *
 * A window (microseconds on the profile's monotonic clock, which is CLOCK_MONOTONIC, the same
 * clock as process.hrtime in any process of this machine) limits the aggregation to the load phase.
 *
 * Usage: node bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--from <µs> --to <µs>] [--dist <copy of dist/>] [--json]
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Directories holding the service's build: dist/ and copies of it (a bench run's), all mapped to src/. */
const distRoots = [resolve(ROOT, 'dist')];
export function addDistRoot(dir) {
  distRoots.push(resolve(dir));
}
const distRootOf = (file) => distRoots.find((root) => file.startsWith(`${root}/`));

const sourceMaps = new Map();
function sourceMapFor(file) {
  if (!sourceMaps.has(file)) {
    let map = null;
    try {
      if (existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    sourceMaps.set(file, map);
  }
  return sourceMaps.get(file);
}

/** A source named by a map, resolved as if the file were in dist/ itself (copies keep dist/'s relative paths). */
function resolveSource(file, source) {
  if (source.startsWith('file://')) return fileURLToPath(source);
  const root = distRootOf(file);
  const asInDist = root ? join(ROOT, 'dist', relative(root, file)) : file;
  return resolve(dirname(asInDist), source);
}

function distToSource(file) {
  const source = sourceMapFor(file)?.payload?.sources?.[0];
  return source ? resolveSource(file, source) : undefined;
}

/** file:line (1-based), mapped to the TypeScript source for the service's own dist files. */
function location(url, line0, col0) {
  if (!url) return '';
  let file = url.startsWith('file://') ? fileURLToPath(url) : url;
  let line = line0 + 1;
  if (distRootOf(file)) {
    const entry = sourceMapFor(file)?.findEntry(line0, Math.max(0, col0));
    if (entry && entry.originalSource) {
      file = resolveSource(file, entry.originalSource);
      line = entry.originalLine + 1;
    } else {
      const source = distToSource(file);
      if (source) {
        file = source;
        line = '?';
      }
    }
  }
  return `${file.startsWith(ROOT) ? relative(ROOT, file) : file}:${line}`;
}

function fileOf(url) {
  if (!url) return '';
  let file = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (distRootOf(file)) file = distToSource(file) ?? file;
  return file.startsWith(ROOT) ? relative(ROOT, file) : file;
}

function areaOf(functionName, url) {
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8/native (program)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  if (url.startsWith('node:')) return 'Node internals';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return `node_modules/${m[1]}`;
  const file = fileOf(url);
  if (file.startsWith('src/')) return `src/${file.split('/')[1]}`;
  return file;
}

export function summarize(profile, { from, to, top = 25 } = {}) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    t += profile.timeDeltas[i] ?? 0;
    // The delta after a sample is the time spent in it (the next delta, or the gap to the end).
    const next = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : Math.max(0, profile.endTime - t);
    if (from !== undefined && t < from) continue;
    if (to !== undefined && t > to) continue;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + next);
    total += next;
  }
  const byFunction = new Map();
  const byFile = new Map();
  const byArea = new Map();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber, columnNumber } = nodes.get(id).callFrame;
    const name = functionName || '(anonymous)';
    const loc = location(url, lineNumber, columnNumber);
    const fnKey = `${name}\t${loc}`;
    byFunction.set(fnKey, (byFunction.get(fnKey) ?? 0) + us);
    const file = url ? fileOf(url) : name;
    byFile.set(file, (byFile.get(file) ?? 0) + us);
    const area = areaOf(functionName, url);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => ({ key, ms: us / 1000, share: total ? us / total : 0 }));
  const busy = total - (byArea.get('idle') ?? 0);
  return {
    windowMs: total / 1000,
    busyMs: busy / 1000,
    functions: rank(byFunction).map(({ key, ms, share }) => {
      const [name, loc] = key.split('\t');
      return { name, location: loc, ms, share };
    }),
    files: rank(byFile).map(({ key, ms, share }) => ({ file: key, ms, share })),
    areas: rank(byArea).map(({ key, ms, share }) => ({ area: key, ms, share })),
  };
}

export function formatSummary(summary, top = 25) {
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  const lines = [];
  lines.push(`Profile window ${(summary.windowMs / 1000).toFixed(1)} s, of which busy (not idle) ${(summary.busyMs / 1000).toFixed(1)} s.`);
  lines.push('', 'Self time by area:', '');
  lines.push('| Area | Self ms | Share of window |', '|---|---:|---:|');
  for (const a of summary.areas.slice(0, 15)) lines.push(`| ${a.area} | ${a.ms.toFixed(0)} | ${pct(a.share)} |`);
  lines.push('', `Top ${top} functions by self time:`, '');
  lines.push('| # | Function | Location | Self ms | Share |', '|---:|---|---|---:|---:|');
  summary.functions.slice(0, top).forEach((f, i) => lines.push(`| ${i + 1} | \`${f.name}\` | ${f.location || '—'} | ${f.ms.toFixed(0)} | ${pct(f.share)} |`));
  lines.push('', 'Top files by self time:', '');
  lines.push('| File | Self ms | Share |', '|---|---:|---:|');
  for (const f of summary.files.slice(0, 15)) lines.push(`| ${f.file} | ${f.ms.toFixed(0)} | ${pct(f.share)} |`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/profile-summary.mjs <file.cpuprofile> [--top N] [--from µs --to µs] [--json]\n');
    process.exit(2);
  }
  const opt = (name) => {
    const at = process.argv.indexOf(`--${name}`);
    return at >= 0 ? Number(process.argv[at + 1]) : undefined;
  };
  const top = opt('top') ?? 25;
  const distAt = process.argv.indexOf('--dist');
  if (distAt >= 0) addDistRoot(process.argv[distAt + 1]);
  const summary = summarize(JSON.parse(readFileSync(file, 'utf8')), { from: opt('from'), to: opt('to'), top });
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary, top)}\n`);
}
