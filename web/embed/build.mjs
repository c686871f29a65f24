// Builds the embedded library into dist/public/js/v1: referral.js (script tag) and referral.mjs (ES
// module), then writes integrity.json (SRI hashes, gzip sizes) and fails when the core is over budget.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = process.env.EMBED_OUT_DIR ?? join(here, '../../dist/public/js/v1');
const BUDGET_GZIP_BYTES = 15 * 1024;

const bundles = [
  { file: 'referral.js', entry: 'src/global.ts', format: 'iife' },
  { file: 'referral.mjs', entry: 'src/esm.ts', format: 'es' },
];

for (const [index, bundle] of bundles.entries()) {
  await build({
    root: here,
    configFile: false,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: index === 0,
      target: 'es2020',
      minify: true,
      sourcemap: false,
      lib: { entry: join(here, bundle.entry), formats: [bundle.format], name: 'referralLibrary', fileName: () => bundle.file },
    },
  });
}

const files = {};
for (const { file } of bundles) {
  const body = readFileSync(join(outDir, file));
  const gzip = gzipSync(body, { level: 9 }).length;
  files[file] = { integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`, bytes: body.length, gzip_bytes: gzip };
  if (gzip > BUDGET_GZIP_BYTES) {
    console.error(`embed: ${file} is ${gzip} bytes gzipped, over the ${BUDGET_GZIP_BYTES}-byte budget`);
    process.exit(1);
  }
}
writeFileSync(join(outDir, 'integrity.json'), `${JSON.stringify({ files }, null, 2)}\n`);
console.log(
  `embed: ${Object.entries(files)
    .map(([file, f]) => `${file} ${f.bytes} B (${f.gzip_bytes} B gzip)`)
    .join(', ')}`,
);
