/**
 * The built service as a process: `npm run projections:rebuild` (the CLI) rebuilds read models
 * identical to the ones the live runner built event by event; SIGTERM drains in-flight requests,
 * answers every request that arrives meanwhile with the API's 503, exits 0 and leaves the data for
 * the next start; a log that lost events its audit index recorded is refused at start-up unless
 * ACCEPT_EVENT_LOSS=true. The project is compiled once, into a temporary directory, so the working
 * tree's dist/ is never touched.
 */
import Database from 'better-sqlite3';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dumpReadModels } from '../../src/operations/rebuild.js';
import { Projection, PROJECTIONS } from '../../src/platform/projections/projection.js';
import { READ_STORE, ReadStore } from '../../src/platform/read-store/read-store.js';
import { buildService, send, startServiceProcess } from '../support/process.js';
import { ADMIN_TOKEN, Service, createMerchant, createWidget } from '../support/service.js';

const work = mkdtempSync(join(tmpdir(), 'referral-process-'));
let dist = '';
const startService = (dataDir: string) => startServiceProcess(dist, dataDir, { SANDBOX_ENABLED: 'false', METRICS_PUBLIC: 'true' });

/** Polls `check` every 50 ms until it holds, for at most 10 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the service as a process', () => {
  beforeAll(async () => {
    dist = await buildService(work);
  }, 150_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('projections:rebuild builds the same documents, in every read model, as the live runner did event by event', async () => {
    const dataDir = join(work, 'rebuild-data');
    mkdirSync(dataDir);
    const service = await Service.start({ dataDir });
    try {
      const a = await createMerchant(service, 'A');
      const b = await createMerchant(service, 'B');
      const w = await createWidget(service, a, { widget_group_id: 'g' });
      await createWidget(service, b);
      await service.patch(`/admin/merchants/${a.id}/widgets/${w.id}`, { name: 'Renamed', is_champion: true }, service.admin);
      await service.patch(`/admin/merchants/${b.id}`, { can_see_recipients: true }, service.admin);
      await Promise.all(Array.from({ length: 20 }, (_, i) => service.post('/v2/customers', { account_id: `c${i}`, first_name: `N${i}` }, { auth: a.bearer })));
      await service.post('/v2/customers', { account_id: 'c3', last_name: 'Changed', email_address: 'c3@example.com' }, { auth: a.bearer });
      await service.post('/v2/customers', { account_id: 'b1' }, { auth: b.bearer });
      await service.delete('/v2/tokens/merchant', { access_key: b.accessKey, secret_key: b.secretKey }, { auth: b.bearer });

      // On the embedded store the audit index is not a read model: it lives in a SQLite file beside
      // the log, written after each commit, so neither the runner nor the rebuild builds it.
      const projections = service.app.get<Projection[]>(PROJECTIONS);
      expect(projections.map((p) => p.name)).not.toContain('audit_index');
      const live = await dumpReadModels(service.app.get<ReadStore>(READ_STORE), projections);
      expect(live.customers).toHaveLength(21);
      expect(live.audit_index).toBeUndefined();
      const trail = async () => (await service.get('/v2/audit/events?limit=100', { auth: a.bearer })).body.results as { type: string }[];
      const trailBefore = await trail();
      expect(trailBefore.filter((e) => e.type === 'CustomerRegistered')).toHaveLength(20);

      const dumpFile = join(work, 'rebuilt.json');
      const { stdout } = await promisify(execFile)(process.execPath, [join(dist, 'operations/rebuild-cli.js'), '--dump', dumpFile], {
        env: { PATH: process.env.PATH, DATA_DIR: dataDir },
        timeout: 30_000,
      });
      expect(stdout).toMatch(/^replayed \d+ events up to position \d+ in [\d.]+ s/m);
      expect(stdout).toContain('  customers: 21 documents');
      expect(stdout).not.toContain('audit_index');
      // Same entity rules in the CLI as in the service, and the index level with the log (the trail
      // above waited for it): opening the file neither rebuilt nor extended its index.
      expect(stdout).not.toContain('event index');
      expect(await trail()).toEqual(trailBefore);
      const dumped = readFileSync(dumpFile, 'utf8');
      // A dump carries no credential: the merchants' secret keys are redacted.
      for (const secret of [a.secretKey, b.secretKey]) expect(dumped).not.toContain(secret);
      expect(live.merchants).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'A', secret_key: '[redacted]' })]));
      const rebuilt = JSON.parse(dumped) as { collections: Record<string, unknown[]> };
      expect(Object.keys(rebuilt.collections).sort()).toEqual(Object.keys(live).sort());
      for (const name of Object.keys(live)) expect({ name, docs: rebuilt.collections[name] }).toEqual({ name, docs: live[name] });
    } finally {
      await service.stop(true);
    }
  }, 30_000);

  it('projections:rebuild finishes (exit 0, the dump written) when the reader of its output goes away (`| head`)', async () => {
    const dataDir = join(work, 'piped-data');
    mkdirSync(dataDir);
    const service = await Service.start({ dataDir });
    await createMerchant(service, 'Piped');
    await service.stop(true);
    const dumpFile = join(work, 'piped.json');
    const child = spawn(process.execPath, [join(dist, 'operations/rebuild-cli.js'), '--dump', dumpFile], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reading end closed before the first line: every write the CLI makes fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const [code] = (await once(child, 'exit')) as [number];
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(Object.keys((JSON.parse(readFileSync(dumpFile, 'utf8')) as { collections: object }).collections)).toContain('merchants');
  }, 30_000);

  it('projections:rebuild refuses (exit 2) a DATA_DIR that holds no event log, and makes nothing there', async () => {
    const missing = join(work, 'mistyped-data-dir');
    const run = promisify(execFile)(process.execPath, [join(dist, 'operations/rebuild-cli.js')], {
      env: { PATH: process.env.PATH, DATA_DIR: missing },
      timeout: 30_000,
    });
    const failed = (await run.then(
      () => undefined,
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('no event log at');
    expect(existsSync(missing)).toBe(false);
  });

  it('a setting it refuses at start-up is logged as JSON too, and it exits 1', async () => {
    const run = promisify(execFile)(process.execPath, [join(dist, 'main.js')], {
      env: { PATH: process.env.PATH, PORT: 'abc', DATA_DIR: join(work, 'refused-data'), LOG_FORMAT: 'json' },
    });
    const failed = (await run.then(
      () => undefined,
      (error: unknown) => error,
    )) as { code: number; stdout: string; stderr: string };
    expect(failed.code).toBe(1);
    const lines = `${failed.stdout}${failed.stderr}`.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    const entries = lines.map((line) => JSON.parse(line) as { level: string; message: string });
    expect(entries).toEqual([expect.objectContaining({ level: 'error', message: expect.stringContaining('PORT') })]);
  });

  it("answers a request that reaches the server while it closes, after the drain, with the API's 503 (X-Request-Id, Retry-After), not Fastify's", async () => {
    const service = await startService(join(work, 'closing-data'));
    const { port } = new URL(service.url);
    try {
      // A request whose first lines are sent: not in flight yet (no onRequest), so the drain does not
      // wait for it, and not idle, so closing the server keeps its connection open until it is answered.
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      let raw = '';
      socket.on('data', (chunk) => (raw += chunk));
      const ended = once(socket, 'close');
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      service.child.kill('SIGTERM');
      // Past the drain and the projections' stop, Fastify closes: the listener refuses new connections.
      await eventually(
        () =>
          new Promise<boolean>((answer) => {
            const probe = connect(Number(port), '127.0.0.1');
            probe.once('connect', () => {
              probe.destroy();
              answer(false);
            });
            probe.once('error', () => answer(true));
          }),
      );
      expect(service.child.exitCode).toBeNull();
      socket.write('X-Request-Id: while-closing\r\n\r\n');
      await ended;

      const [head, body] = raw.split('\r\n\r\n');
      const [status, ...fields] = head.split('\r\n');
      const headers = Object.fromEntries(fields.map((field) => [field.slice(0, field.indexOf(':')).toLowerCase(), field.slice(field.indexOf(':') + 1).trim()]));
      expect(status).toBe('HTTP/1.1 503 Service Unavailable');
      expect(headers).toMatchObject({ 'x-request-id': 'while-closing', 'retry-after': '5', connection: 'close' });
      expect(JSON.parse(body)).toEqual({ errors: ['the service is shutting down; retry on another instance'] });
      expect(await service.exited).toEqual({ code: 0, signal: null });
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 30_000);

  it('refuses to start on a log that lost acknowledged events its audit index recorded, naming the positions; ACCEPT_EVENT_LOSS=true starts and keeps the old index aside', async () => {
    const dataDir = join(work, 'lost-data');
    const first = await startService(dataDir);
    let token: string;
    try {
      const created = await send(first.url, 'POST', '/admin/merchants', { name: 'Lossy' }, `Bearer ${ADMIN_TOKEN}`);
      token = `Bearer ${(await send(first.url, 'POST', '/v2/tokens/merchant', { access_key: created.body.merchant.access_key, secret_key: created.body.merchant.secret_key })).body.token}`;
      for (const account of ['kept', 'lost']) expect((await send(first.url, 'POST', '/v2/customers', { account_id: account }, token)).status).toBe(201);
      first.child.kill('SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });
    } finally {
      first.child.kill('SIGKILL');
    }

    // The log loses its last commit (the customer 'lost', answered 201), as a damaged -wal would
    // make it; the index, written after that commit, still records it.
    const log = new Database(join(dataDir, 'events.sqlite'));
    const head = log.prepare('SELECT MAX(position) FROM events').pluck().get() as number;
    const lastCommit = log.prepare('SELECT created_at FROM events WHERE position = ?').pluck().get(head) as string;
    const lostCount = log.prepare('DELETE FROM events WHERE created_at = ?').run(lastCommit).changes;
    log.close();
    expect(lostCount).toBeGreaterThan(0);
    const range = lostCount === 1 ? `position ${head} is gone` : `positions ${head - lostCount + 1} to ${head} are gone`;

    const refused = (await promisify(execFile)(process.execPath, [join(dist, 'main.js')], {
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN, SANDBOX_ENABLED: 'false', LOG_FORMAT: 'json' },
      timeout: 20_000,
    }).then(
      () => undefined,
      (error: unknown) => error,
    )) as { code: number; stdout: string; stderr: string } | undefined;
    expect(refused?.code).toBe(1);
    const output = `${refused!.stdout}${refused!.stderr}`;
    expect(output).toContain('refusing to start: the event log has lost events it had committed');
    expect(output).toContain(`had recorded it up to position ${head}`);
    expect(output).toContain(`the log ends at position ${head - lostCount}: ${range}`);
    expect(output).toContain('ACCEPT_EVENT_LOSS=true');
    expect(output).not.toContain('listening on');
    expect(readdirSync(dataDir).filter((name) => name.includes('.lost-'))).toEqual([]);

    const accepted = await startServiceProcess(dist, dataDir, { SANDBOX_ENABLED: 'false', ACCEPT_EVENT_LOSS: 'true' });
    try {
      expect((await send(accepted.url, 'GET', '/ready')).status).toBe(200);
      const customers = await send(accepted.url, 'GET', '/v2/customers', undefined, token);
      expect(customers.body.results.map((c: { account_id: string }) => c.account_id)).toEqual(['kept']);
      const errors = `${accepted.stdout()}${accepted.stderr()}`
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { level: string; message: string })
        .filter((entry) => entry.level === 'error');
      expect(errors).toEqual([expect.objectContaining({ message: expect.stringContaining(`the log ends at position ${head - lostCount}: ${range}`) })]);
      const moved = readdirSync(dataDir).filter((name) => name.startsWith('events.sqlite-index.lost-'));
      expect(moved).toHaveLength(1);
      expect(errors[0].message).toContain(join(dataDir, moved[0]));
      // The index kept aside is the old one, with what the log lost.
      const kept = new Database(join(dataDir, moved[0]), { readonly: true });
      expect(kept.prepare("SELECT position FROM event_index_meta WHERE name = 'event_index'").pluck().get()).toBe(head);
      kept.close();
      accepted.child.kill('SIGTERM');
      expect(await accepted.exited).toEqual({ code: 0, signal: null });
    } finally {
      accepted.child.kill('SIGKILL');
    }

    // The new index is the log's: the next start, without the setting, is an ordinary one.
    const next = await startService(dataDir);
    try {
      expect((await send(next.url, 'GET', '/ready')).status).toBe(200);
      next.child.kill('SIGTERM');
      expect(await next.exited).toEqual({ code: 0, signal: null });
    } finally {
      next.child.kill('SIGKILL');
    }
  }, 60_000);

  it('on SIGTERM refuses new requests, finishes the one in flight, exits 0, and the next start has its data', async () => {
    const dataDir = join(work, 'shutdown-data');
    const first = await startService(dataDir);
    let token = '';
    let secretKey: string;
    try {
      const created = await send(first.url, 'POST', '/admin/merchants', { name: 'Graceful' }, `Bearer ${ADMIN_TOKEN}`);
      expect(created.status).toBe(201);
      secretKey = created.body.merchant.secret_key;
      token = (await send(first.url, 'POST', '/v2/tokens/merchant', { access_key: created.body.merchant.access_key, secret_key: secretKey })).body.token;
      expect((await send(first.url, 'GET', '/v2/customers', undefined, `Bearer ${token}`)).status).toBe(200);

      // A request in flight: its headers and half its body are sent, the rest follows after SIGTERM.
      const body = JSON.stringify({ account_id: 'in-flight', first_name: 'Slow' });
      let finish = () => {};
      const inFlight = new Promise<{ status: number; text: string }>((done, fail) => {
        const req = httpRequest(`${first.url}/v2/customers`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization: `Bearer ${token}`,
            'x-request-id': 'in-flight-1',
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => done({ status: res.statusCode!, text }));
        });
        req.on('error', fail);
        req.write(body.slice(0, 10));
        finish = () => req.end(body.slice(10));
      });
      inFlight.catch(() => undefined); // reported by the await below; not an unhandled rejection if the test fails earlier
      // The service has it in flight (the scrape itself is the other one) ...
      await eventually(async () => /^http_requests_in_flight 2$/m.test((await send(first.url, 'GET', '/metrics')).text));
      first.child.kill('SIGTERM');
      // ... and, told to stop, refuses new requests while it waits for that one.
      let refused = await send(first.url, 'GET', '/health');
      await eventually(async () => (refused = await send(first.url, 'GET', '/health')).status === 503);
      expect(refused.body).toEqual({ errors: ['the service is shutting down; retry on another instance'] });
      expect(first.child.exitCode).toBeNull();
      finish();

      const answered = await inFlight;
      expect(answered.status).toBe(201);
      expect(JSON.parse(answered.text).customer).toMatchObject({ account_id: 'in-flight', first_name: 'Slow' });
      expect(await first.exited).toEqual({ code: 0, signal: null });
    } finally {
      first.child.kill('SIGKILL');
    }

    const lines = first.stdout().trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.find((e) => e.request_id === 'in-flight-1')).toMatchObject({
      context: 'Http',
      route: '/v2/customers',
      status: 201,
      merchant_id: expect.any(Number),
    });
    expect(entries.some((e) => String(e.message).includes('waiting for 1 request(s) in flight'))).toBe(true);
    // The stop says it began and that it ended cleanly (README: stopping the service).
    expect(entries.filter((e) => e.context === 'Shutdown').map((e) => e.message)).toEqual([
      'shutting down: new requests get 503, 1 in flight finish first',
      'waiting for 1 request(s) in flight',
      'stopped on SIGTERM: read-model checkpoints stored, stores closed',
    ]);
    for (const secret of [secretKey, token, ADMIN_TOKEN]) expect(first.stdout() + first.stderr()).not.toContain(secret);

    const second = await startService(dataDir);
    try {
      const list = await send(second.url, 'GET', '/v2/customers?account_id=in-flight', undefined, `Bearer ${token}`);
      expect(list.status).toBe(200);
      expect(list.body.results.map((c: { first_name: string }) => c.first_name)).toEqual(['Slow']);
      expect((await send(second.url, 'GET', '/ready')).status).toBe(200);
      second.child.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    } finally {
      second.child.kill('SIGKILL');
    }
  }, 40_000);
});
