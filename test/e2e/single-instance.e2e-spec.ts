/**
 * A second process on the same data is refused at start-up, naming the first, and the first
 * keeps serving; once the first dies (SIGKILL, so nothing of its own releases anything) a new
 * start succeeds. Embedded mode (a lock on DATA_DIR) as real processes and as two apps in one
 * process; server mode (a lease in MongoDB or EventStoreDB) when those servers are configured.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { ManualClock } from '../../src/platform/clock.js';
import { StorageInUseError } from '../../src/platform/instance/instance-identity.js';
import { buildService, RunningService, send, startRefused, startServiceProcess } from '../support/process.js';
import { ADMIN_TOKEN, Service } from '../support/service.js';

const work = mkdtempSync(join(tmpdir(), 'referral-single-'));
let dist = '';
const admin = `Bearer ${ADMIN_TOKEN}`;

/** The error lines a refused start logged (JSON, one a line). */
function errorsOf(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { level: string; message: string })
    .filter((entry) => entry.level === 'error')
    .map((entry) => entry.message);
}

const portOf = (service: RunningService) => new URL(service.url).port;

async function stop(service: RunningService): Promise<void> {
  service.child.kill('SIGKILL');
  await service.exited;
}

describe('one process per store', () => {
  beforeAll(async () => {
    dist = await buildService(work);
  }, 150_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('refuses a second process on the same DATA_DIR, naming the first; the first keeps serving; after the first is killed with SIGKILL a new start serves', async () => {
    const dataDir = join(work, 'embedded');
    const first = await startServiceProcess(dist, dataDir);
    let third: RunningService | undefined;
    try {
      const created = await send(first.url, 'POST', '/admin/merchants', { name: 'First' }, admin);
      expect(created.status).toBe(201);

      const second = await startRefused(dist, dataDir);
      expect(second.code).toBe(1);
      expect(second.output).not.toContain('listening on http');
      expect(errorsOf(second.output)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^refusing to start: another process \\(pid ${first.child.pid} on host ${hostname()}, listening on :${portOf(first)}, since \\d{4}-\\d\\d-\\d\\dT[^)]+Z\\) ` +
              `holds DATA_DIR ${dataDir} \\(lock ${join(dataDir, 'instance.lock')}\\); stop it first: several processes on one store are not supported yet$`,
          ),
        ),
      ]);
      // The refused process changed nothing: the record still names the first, which still reads and writes.
      expect(JSON.parse(readFileSync(join(dataDir, 'instance.json'), 'utf8'))).toMatchObject({ pid: first.child.pid, port: Number(portOf(first)) });
      expect((await send(first.url, 'GET', '/health')).status).toBe(200);
      expect((await send(first.url, 'POST', '/admin/merchants', { name: 'After the refusal' }, admin)).status).toBe(201);

      first.child.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

      third = await startServiceProcess(dist, dataDir);
      expect((await send(third.url, 'GET', '/health')).status).toBe(200);
      const merchant = await send(third.url, 'GET', `/admin/merchants/${created.body.merchant.id}`, undefined, admin);
      expect(merchant.status).toBe(200);
      expect(merchant.body.merchant.name).toBe('First');
      expect(JSON.parse(readFileSync(join(dataDir, 'instance.json'), 'utf8'))).toMatchObject({ pid: third.child.pid, port: Number(portOf(third)) });
      // And the new holder refuses the next one in turn.
      expect(errorsOf((await startRefused(dist, dataDir)).output)[0]).toContain(`another process (pid ${third.child.pid} on host`);
    } finally {
      await stop(first);
      if (third) await stop(third);
    }
  }, 180_000);

  it('refuses a second app on the same DATA_DIR in one process, and starts one again once the first is closed', async () => {
    const dataDir = join(work, 'in-process');
    mkdirSync(dataDir);
    const first = await Service.start({ dataDir, sandbox: true });
    let again: Service | undefined;
    try {
      const refused = await Service.start({ dataDir }).then(
        async (service) => {
          await service.stop(true);
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StorageInUseError);
      expect((refused as Error).message).toContain(
        `another app in this process (pid ${process.pid} on host ${hostname()}, listening on :${new URL(first.url).port}`,
      );
      expect((await first.get('/health')).status).toBe(200);
      expect((await first.post('/admin/merchants', { name: 'Still served' }, first.admin)).status).toBe(201);
      // A DATA_DIR of its own is no conflict.
      const elsewhere = await Service.start();
      await elsewhere.stop();
    } finally {
      await first.stop(true);
    }
    try {
      again = await Service.start({ dataDir });
      expect((await again.get('/health')).status).toBe(200);
    } finally {
      await again?.stop(true);
    }
  }, 60_000);

  it('lets go of DATA_DIR when a start fails after taking it, so that the next start is not refused', async () => {
    const dataDir = join(work, 'failed-start');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'events.sqlite'), 'not a SQLite file, so opening the event log fails');
    const failed = await Service.start({ dataDir }).then(
      async (service) => {
        await service.stop(true);
        return 'started';
      },
      (error: unknown) => error,
    );
    // Read by its message: better-sqlite3's error may come from another realm than jest's Error.
    expect(String((failed as { message?: unknown }).message ?? failed)).toMatch(/not a database/);
    expect(existsSync(join(dataDir, 'instance.json'))).toBe(false);
    rmSync(join(dataDir, 'events.sqlite'));
    const service = await Service.start({ dataDir });
    try {
      expect((await service.get('/health')).status).toBe(200);
    } finally {
      await service.stop(true);
    }
  }, 30_000);

  // Server mode: a second instance on another DATA_DIR shares the servers; only the lease refuses it.
  const servers: [string, Record<string, string>][] = [];
  if (process.env.MONGO_URL) servers.push(['MongoDB', { MONGO_URL: process.env.MONGO_URL, MONGO_DATABASE: `single_${randomUUID().slice(0, 8)}` }]);
  if (process.env.EVENTSTORE_URL)
    servers.push(['EventStoreDB', { EVENTSTORE_URL: process.env.EVENTSTORE_URL, EVENTSTORE_NAMESPACE: `single-${randomUUID().slice(0, 8)}-` }]);
  if (servers.length === 0) {
    it.skip('skipped: set MONGO_URL or EVENTSTORE_URL to run the server-mode lease end to end', () => undefined);
  }
  if (process.env.MONGO_URL) {
    it("MongoDB: an app whose clock jumps past the lease's expiry (a test's manual clock) keeps its lease: the lease runs on real time", async () => {
      const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));
      const exits: unknown[] = [];
      const exit = jest.spyOn(process, 'exit').mockImplementation(((code?: number) => void exits.push(code)) as never);
      const service = await Service.start({ clock, mongoUrl: process.env.MONGO_URL, env: { INSTANCE_LEASE_TTL_MS: '4000', INSTANCE_LEASE_RENEW_MS: '1000' } });
      try {
        clock.advance(30 * 24 * 3600_000);
        // Several renewals go by in real time.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        expect(exits).toEqual([]);
        expect((await service.get('/health')).status).toBe(200);
      } finally {
        await service.stop();
        exit.mockRestore();
      }
    });
  }

  for (const [name, serverEnv] of servers) {
    it(`${name}: refuses a second instance sharing the servers while the first holds the lease; after the first is killed with SIGKILL a new start serves once the lease expired`, async () => {
      const env = { ...serverEnv, INSTANCE_LEASE_TTL_MS: '3000', INSTANCE_LEASE_RENEW_MS: '1000' };
      const first = await startServiceProcess(dist, join(work, `${name}-a`), env);
      let third: RunningService | undefined;
      try {
        const second = await startRefused(dist, join(work, `${name}-b`), env);
        expect(second.code).toBe(1);
        expect(errorsOf(second.output)).toEqual([
          expect.stringMatching(
            new RegExp(
              `^refusing to start: another process \\(pid ${first.child.pid} on host .+\\) holds the lease on ${name} .+; its lease ends at .+; stop it first`,
            ),
          ),
        ]);
        expect((await send(first.url, 'GET', '/health')).status).toBe(200);
        if (name === 'MongoDB') {
          // The rebuild would drop the running service's collections: refused too, --yes or not.
          const rebuild = await new Promise<{ code: number | null; stderr: string }>((done) => {
            const child = spawn(process.execPath, [join(dist, 'operations/rebuild-cli.js'), '--yes'], {
              env: { PATH: process.env.PATH, DATA_DIR: join(work, `${name}-a`), ...env },
              stdio: ['ignore', 'ignore', 'pipe'],
            });
            let stderr = '';
            child.stderr.on('data', (chunk) => (stderr += chunk));
            child.on('close', (code) => done({ code, stderr }));
          });
          expect(rebuild.code).toBe(2);
          expect(rebuild.stderr).toMatch(new RegExp(`^refusing to rebuild: another process \\(pid ${first.child.pid} on host `));
          expect((await send(first.url, 'GET', '/ready')).status).toBe(200);
        }

        first.child.kill('SIGKILL');
        await first.exited;
        const deadline = Date.now() + 20_000;
        while (!third) {
          third = await startServiceProcess(dist, join(work, `${name}-c`), env).catch((error: Error) => {
            if (Date.now() > deadline || !error.message.includes('holds the lease')) throw error;
            return undefined;
          });
        }
        expect((await send(third.url, 'GET', '/health')).status).toBe(200);
      } finally {
        await stop(first);
        if (third) await stop(third);
      }
    }, 180_000);
  }
});
