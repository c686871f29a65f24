/**
 * Brings a store's audit index (its `-index` file) level with its log, as the service would at
 * open, so that a benchmark of the service's start-up measures the read models' replay and not a
 * one-off index build (a store written outside the service, such as gen-events.mjs's, has none).
 *
 * Usage: node bench/lib/build-index.mjs --db <events.sqlite> --dist <copy of dist/>
 * Prints (and sends over IPC when started with one) the store's `indexRebuild` ({} when none was needed).
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const arg = (name) => {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) throw new Error(`usage: build-index.mjs --db <events.sqlite> --dist <dist>; --${name} missing`);
  return process.argv[at + 1];
};
const dist = resolve(arg('dist'));
const { SqliteEventStore } = await import(pathToFileURL(join(dist, 'platform/event-store/sqlite-event-store.js')).href);
const { auditEventIndex } = await import(pathToFileURL(join(dist, 'audit/sqlite-audit-index.js')).href);
const store = new SqliteEventStore({ path: arg('db'), index: auditEventIndex });
const result = store.indexRebuild ?? {};
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
if (process.send) process.send(result);
