/**
 * The public sandbox cannot hurt the live service it shares a process with: a flood of large
 * writes with the published keys is answered 429 once the generation's quota is used, while live
 * requests go on and the heap stays bounded; writes per minute are limited per address and per
 * key; resets give their memory back (a child process started with --expose-gc); and its
 * generations do not repeat Nest's start-up lines in the process's log.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildService, send, startServiceProcess } from '../support/process.js';
import { ADMIN_TOKEN, createMerchant, eventually, Reply, Service } from '../support/service.js';

const MiB = 1024 * 1024;
const SAMPLE = { access_key: 'ak_sandbox_sample_merchant_0001', secret_key: 'sk_sandbox_sample_merchant_secret_0001' };
const BASIC = `Basic ${Buffer.from(`${SAMPLE.access_key}:${SAMPLE.secret_key}`).toString('base64')}`;

/** The heap after a full collection (gc exposed at run time: jest is not started with --expose-gc). */
function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** A purchase body of about 30 KB, under the sandbox's 32 KiB body limit: 100 products with 255-character SKUs. */
function bigPurchase(orderId: string) {
  return { order_id: orderId, products: Array.from({ length: 100 }, (_, i) => ({ sku: `${i}-`.padEnd(255, 'x'), quantity: 1, price: 1 })) };
}

async function sandboxBearer(service: Service): Promise<string> {
  return `Bearer ${(await service.post('/sandbox/v2/tokens/merchant', SAMPLE)).body.token}`;
}

function sandboxFiles(service: Service): number {
  const dir = join(service.dataDir, 'sandbox');
  return readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
}

describe('sandbox limits', () => {
  it('answers a flood of large writes 429 once the quota is used, while live requests go on and the heap stays bounded', async () => {
    const maxBytes = 4 * MiB;
    const service = await Service.start({
      sandbox: true,
      env: { SANDBOX_MAX_BYTES: String(maxBytes), SANDBOX_WRITES_PER_MINUTE_PER_ADDRESS: '100000', SANDBOX_WRITES_PER_MINUTE_PER_KEY: '100000' },
    });
    try {
      const live = await createMerchant(service, 'Live shop');
      const bearer = await sandboxBearer(service);
      const before = heapAfterGc();
      const filesBefore = sandboxFiles(service);
      const replies: Reply[] = [];
      let sent = 0;
      // Four clients, 1,200 requests of about 30 KB: some 36 MB, nine times the quota.
      const clients = Array.from({ length: 4 }, async (_, client) => {
        for (let i = 0; i < 300; i++) {
          replies.push(await service.post('/sandbox/v2/purchases', bigPurchase(`FLOOD-${client}-${i}`), { auth: bearer }));
          sent += 1;
        }
      });
      // The live service while the flood runs.
      const liveChecks: number[] = [];
      const liveTraffic = (async () => {
        let n = 0;
        while (sent < 1200) {
          liveChecks.push((await service.get('/health')).status);
          liveChecks.push((await service.post('/v2/purchases', { order_id: `LIVE-${n++}`, payment_amount: 10 }, { auth: live.bearer })).status);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await Promise.all([...clients, liveTraffic]);

      const accepted = replies.filter((r) => r.status === 201);
      const refused = replies.filter((r) => r.status === 429);
      expect(accepted.length + refused.length).toBe(1200);
      // At most the quota's worth was taken (each purchase is about 30 KB of events).
      expect(accepted.length).toBeGreaterThan(0);
      expect(accepted.length).toBeLessThanOrEqual(Math.ceil(maxBytes / 30_000));
      for (const r of refused) {
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.body.errors[0]).toMatch(
          /^the sandbox is full: it keeps at most 10000 events and 4194304 bytes written since its last reset; it returns to its baseline at .* \(retry after \d+ s\)$/,
        );
      }
      expect(liveChecks.length).toBeGreaterThan(0);
      expect(liveChecks.filter((s) => s !== 200 && s !== 201)).toEqual([]);
      expect((await service.post('/v2/purchases', { order_id: 'LIVE-after', payment_amount: 10 }, { auth: live.bearer })).status).toBe(201);
      expect((await service.get('/health')).status).toBe(200);
      // Reads of the full sandbox go on.
      expect((await service.get('/sandbox/v2/purchases?limit=1', { auth: bearer })).status).toBe(200);

      // Memory and disk bounded by the quota, not by what was sent (36 MB of bodies).
      const grown = heapAfterGc() - before;
      expect(grown).toBeLessThan(8 * maxBytes);
      expect(sandboxFiles(service) - filesBefore).toBeLessThan(6 * maxBytes);

      // A reset gives the sandbox its room back.
      await service.post('/admin/sandbox/reset', undefined, service.admin);
      expect((await service.post('/sandbox/v2/purchases', bigPurchase('AFTER-RESET'), { auth: bearer })).status).toBe(201);
    } finally {
      await service.stop();
    }
  }, 300_000);

  it('limits writes per minute per address, reads and the live API going on', async () => {
    const service = await Service.start({ sandbox: true, env: { SANDBOX_WRITES_PER_MINUTE_PER_ADDRESS: '3' } });
    try {
      const live = await createMerchant(service, 'Live shop');
      const bearer = await sandboxBearer(service); // the first write (tokens are issued by a POST)
      expect((await service.post('/sandbox/v2/customers', { account_id: 'one' }, { auth: bearer })).status).toBe(201);
      expect((await service.post('/sandbox/v2/customers', { account_id: 'two' }, { auth: bearer })).status).toBe(201);
      const refused = await service.post('/sandbox/v2/customers', { account_id: 'three' }, { auth: bearer });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body.errors).toEqual([expect.stringMatching(/^too many writes to the sandbox from this address: at most 3 a minute; retry after \d+ s$/)]);
      // Nothing was written; reads, and the live API, are not limited.
      expect((await service.get('/sandbox/v2/customers?account_id=three', { auth: bearer })).body.results).toEqual([]);
      expect((await service.post('/v2/customers', { account_id: 'live' }, { auth: live.bearer })).status).toBe(201);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('limits writes per minute per key, whichever form the sample credentials take', async () => {
    const service = await Service.start({ sandbox: true, env: { SANDBOX_WRITES_PER_MINUTE_PER_KEY: '2' } });
    try {
      // Issuing a token names no key in Authorization: not counted against one.
      const bearer = await sandboxBearer(service);
      expect((await service.post('/sandbox/v1/purchases', { order_id: 'K-1' }, { auth: BASIC })).status).toBe(201);
      expect((await service.post('/sandbox/v2/purchases', { order_id: 'K-2' }, { auth: bearer })).status).toBe(201);
      for (const auth of [BASIC, bearer]) {
        const refused = await service.post('/sandbox/v2/customers', { account_id: 'over' }, { auth });
        expect([refused.status, refused.body.errors]).toEqual([
          429,
          [
            expect.stringMatching(
              /^too many writes to the sandbox with these credentials: at most 2 a minute, from every address together; retry after \d+ s$/,
            ),
          ],
        ]);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Credentials of no merchant are answered 401, as always.
      expect((await service.post('/sandbox/v2/customers', { account_id: 'none' })).status).toBe(401);
    } finally {
      await service.stop();
    }
  }, 60_000);

  describe('the built service in child processes', () => {
    let work: string;
    let dist: string;
    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'referral-sandbox-heap-'));
      dist = await buildService(work);
    }, 180_000);
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    it("logs Nest's start-up lines once, the live service's: a sandbox generation's are left out, its own lines say Sandbox", async () => {
      const dataDir = join(work, 'logs');
      mkdirSync(dataDir);
      const running = await startServiceProcess(dist, dataDir, { SANDBOX_ENABLED: 'true' });
      try {
        const lines = () =>
          running
            .stdout()
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as { context: string; message: string });
        await eventually(async () => expect(lines().some((l) => l.message === 'sandbox generation 1 is live')).toBe(true), 20_000);
        expect((await send(running.url, 'POST', '/admin/sandbox/reset', undefined, `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
        await eventually(async () => expect(lines().some((l) => l.message === 'sandbox generation 2 is live')).toBe(true), 20_000);
        const count = (context: string, message: string) => lines().filter((l) => l.context === context && l.message === message).length;
        expect(count('InstanceLoader', 'AppModule dependencies initialized')).toBe(1);
        expect(count('NestApplication', 'Nest application successfully started')).toBe(1);
        expect(lines().filter((l) => l.context === 'RoutesResolver' && l.message.startsWith('V2WidgetsController'))).toHaveLength(1);
        expect(lines().filter((l) => /^Sandbox\/(NestFactory|InstanceLoader|RoutesResolver|RouterExplorer|NestApplication)$/.test(l.context))).toEqual([]);
      } finally {
        running.child.kill('SIGTERM');
        await running.exited;
      }
    }, 60_000);

    it('gives back the memory of every generation: 200 resets leave the heap after a full collection flat', async () => {
      const dataDir = join(work, 'data');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--expose-gc', resolve('test/support/sandbox-reset-heap.mjs'), dist, dataDir, '200', '20'],
        {
          timeout: 540_000,
          maxBuffer: MiB,
        },
      );
      const samples = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { reset: number; heapUsed: number });
      expect(samples.map((s) => s.reset)).toEqual([0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200]);
      // Past the first resets (caches, JIT), flat: each retired generation used to keep about 2.4 MiB.
      const warm = samples[1].heapUsed;
      for (const sample of samples.slice(2))
        expect({ reset: sample.reset, grown: sample.heapUsed - warm < 20 * MiB }).toEqual({ reset: sample.reset, grown: true });
    }, 600_000);
  });
});
