/**
 * npm run projections:rebuild — rebuilds every read model from the event store.
 *
 *   node dist/operations/rebuild-cli.js [--yes] [--dump <file>]
 *
 * Embedded default (in-memory read models): the running service rebuilds them at every start,
 * so nothing durable is replaced; the command replays the whole log into fresh models, which
 * checks that every projection still applies every stored event, reports documents per read
 * model, and with --dump writes them as JSON. Safe while the service runs (SQLite allows
 * readers beside the writer). The audit index is not among these read models there: it lives in
 * a SQLite file beside the log, written after each commit (src/audit/audit-storage.ts); opening
 * the store brings it level with the log when the entity rules changed or it fell behind (said on
 * the output), nothing else ever rebuilds it.
 *
 * MongoDB (MONGO_URL): the models are durable and shared with the service, and only one writer
 * may apply the log to them, so stop the service (every replica) first and pass --yes: the
 * database's collections and checkpoints are dropped and replayed, and the service resumes
 * from the rebuilt checkpoints when it starts. The command holds the service's storage claim
 * meanwhile (DATA_DIR lock, leases): refused while the service runs, and refusing its start.
 *
 * Exit codes: 0 rebuilt, 1 failed, 2 refused (usage, MongoDB without --yes or with the service running, or no event log in DATA_DIR).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../platform/clock.js';
import { loadConfig } from '../platform/config.js';
import { StorageInUseError } from '../platform/instance/instance-identity.js';
import { claimStorage, StorageClaim } from '../platform/instance/storage-claim.js';
import { describeEventLogLoss } from '../platform/event-store/sqlite-event-store.js';
import { MemoryReadStore } from '../platform/read-store/memory-read-store.js';
import { ReadStore } from '../platform/read-store/read-store.js';
import { createReadStore, describeStorage, liveStorage } from '../platform/storage.js';
import { dumpReadModels, rebuildReadModels } from './rebuild.js';
import { serviceProjectionsFor } from './service-projections.js';
import { createServiceEventStore } from './service-storage.js';
import type { PersonalDataEventStore } from '../platform/personal-data/personal-data-event-store.js';

interface Args {
  yes: boolean;
  dump?: string;
}

function parseArgs(argv: string[]): Args | string {
  const args: Args = { yes: false };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--yes') args.yes = true;
    else if (argv[i] === '--dump' && argv[i + 1]) args.dump = argv[++i];
    else return `unknown argument ${argv[i]}\nusage: projections:rebuild [--yes] [--dump <file>]`;
  }
  return args;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n`);
    return 2;
  }
  const config = loadConfig();
  const out = process.stdout;
  // A reader that goes away (`| head`) ends the output, not the rebuild: an unhandled EPIPE would
  // stop it half-way, with MongoDB's collections already dropped.
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
  if (config.mongoUrl && !args.yes) {
    process.stderr.write(
      'MongoDB read models are durable and the running service writes them: stop the service (every replica), then run again with --yes.\n' +
        'Every read-model collection and checkpoint is dropped and rebuilt; the service resumes from the new checkpoints.\n',
    );
    return 2;
  }
  // A mistyped DATA_DIR would otherwise be made, hold an empty log, and "rebuild" nothing with exit 0.
  const log = join(config.dataDir, liveStorage(config).sqliteFile);
  if (!config.eventStoreUrl && !existsSync(log)) {
    process.stderr.write(`no event log at ${log}: DATA_DIR names no service's data, so there is nothing to rebuild\n`);
    return 2;
  }
  let events: PersonalDataEventStore | undefined;
  let store: ReadStore | undefined;
  let claim: StorageClaim | undefined;
  try {
    // MongoDB's models are the service's: held as the service holds its store, so a running
    // service refuses the rebuild (and a service started meanwhile is refused) whatever --yes said.
    if (config.mongoUrl) {
      try {
        claim = await claimStorage(config, systemClock, (reason) => {
          process.stderr.write(`\nrebuild stopped: ${reason}\n`);
          process.exit(1);
        });
      } catch (error) {
        if (!(error instanceof StorageInUseError)) throw error;
        process.stderr.write(`${error.message.replace(/^refusing to start/, 'refusing to rebuild')}\n`);
        return 2;
      }
    }
    events = await createServiceEventStore(config, systemClock);
    if (events.indexRebuild) {
      const { reason, events: count, entries, ms, lost } = events.indexRebuild;
      if (lost)
        process.stderr.write(`${describeEventLogLoss(lost)}; going on without them (ACCEPT_EVENT_LOSS=true): the old index is kept as ${lost.movedTo}\n`);
      const what = reason === 'behind' ? 'brought the event index up to date with the log' : `rebuilt the event index from the log (${reason})`;
      out.write(`${what}: ${count} events, ${entries} entries in ${(ms / 1000).toFixed(1)} s\n`);
    }
    const serviceProjections = serviceProjectionsFor(events);
    out.write(`rebuilding ${serviceProjections.length} read models from ${describeStorage(config)}\n`);
    if (config.mongoUrl) {
      store = await createReadStore(config);
      await store.clear();
    } else {
      store = new MemoryReadStore();
    }
    const result = await rebuildReadModels(events, store, serviceProjections, out);
    for (const [name, count] of Object.entries(result.documents)) out.write(`  ${name}: ${count} documents\n`);
    if (args.dump) {
      const dump = { position: result.position.toString(), collections: await dumpReadModels(store, serviceProjections) };
      writeFileSync(args.dump, JSON.stringify(dump));
      out.write(`wrote ${args.dump}\n`);
    }
    out.write(
      config.mongoUrl ? 'done: the service can be started again\n' : 'done: every stored event replays cleanly (in-memory models are rebuilt at each start)\n',
    );
    return 0;
  } catch (error) {
    process.stderr.write(`\nrebuild failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  } finally {
    await store?.close().catch(() => undefined);
    await events?.close().catch(() => undefined);
    await claim?.release().catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
