/**
 * No acknowledged write is lost or duplicated across a crash. The built service runs as a
 * child process on a fresh DATA_DIR; a concurrent mix of writes (customers, links, shares with
 * reminders, purchases with referral codes, duplicate order ids) runs until a kill -9 at a
 * random moment; the service restarts on the same DATA_DIR and every 2xx is checked to be
 * there exactly once, every 409 to have created nothing, every converted purchase to have one
 * conversion and at most one reward, pending webhooks and reminders to go out after all, and the
 * audit trail (an index written after the log's commit) to list every event of the log once.
 * Five rounds, each with its own kill point (seeded, so a failure can be replayed).
 */
import Database from 'better-sqlite3';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildService, HttpReply, send, startServiceProcess } from '../support/process.js';
import { ADMIN_TOKEN, eventually } from '../support/service.js';
import { merchantOf } from '../../src/audit/entities.js';

const ROUNDS = 5;
const SEED = 20261122;
const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_INTERVAL_MS: '200', REMINDER_DELAY_MS: '1500', SCHEDULER_TICK_MS: '50' };

/** mulberry32: repeatable kill points and choices. */
function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Op = { kind: 'customer' | 'link' | 'share' | 'purchase'; key: string; reply: HttpReply | null };

describe('crash safety (kill -9 and restart)', () => {
  const work = mkdtempSync(join(tmpdir(), 'referral-crash-'));
  let dist = '';
  let receiver: Server;
  let receiverUrl = '';
  const deliveries = new Map<string, number>();

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const event = JSON.parse(body) as { type: string; data: { purchase_id?: number } };
        if (event.type === 'conversion.created') {
          const key = String(event.data.purchase_id);
          deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
        }
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    dist = await buildService(work);
  }, 150_000);

  afterAll(async () => {
    await new Promise((r) => receiver.close(r));
    rmSync(work, { recursive: true, force: true });
  });

  for (let round = 1; round <= ROUNDS; round += 1) {
    it(`round ${round}: every acknowledged write survives exactly once`, async () => {
      const random = rng(SEED + round);
      const dataDir = join(work, `round-${round}`);
      let service = await startServiceProcess(dist, dataDir, env);
      const admin = `Bearer ${ADMIN_TOKEN}`;
      const merchant = (await send(service.url, 'POST', '/admin/merchants', { name: `Crash ${round}` }, admin)).body.merchant;
      const widget = (
        await send(
          service.url,
          'POST',
          `/admin/merchants/${merchant.id}/widgets`,
          { name: 'W', reward_type: 'fixed_cash', reward_amount: 5, destination_url: 'https://shop.example/' },
          admin,
        )
      ).body.widget;
      expect(
        (await send(service.url, 'POST', `/admin/merchants/${merchant.id}/webhook_endpoints`, { url: receiverUrl, events: ['conversion.created'] }, admin))
          .status,
      ).toBe(201);
      const token = `Bearer ${(await send(service.url, 'POST', '/v2/tokens/merchant', { access_key: merchant.access_key, secret_key: merchant.secret_key })).body.token}`;
      const codes: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        codes.push(
          (await send(service.url, 'POST', '/v2/personal_referral_links', { widget_id: widget.id, email_address: `seed${i}@example.com` }, token)).body
            .referral_link.code,
        );
      }

      // Concurrent writers until the kill; replies that never came are unknown outcomes.
      const ops: Op[] = [];
      let killed = false;
      const writer = async (w: number) => {
        for (let i = 0; !killed; i += 1) {
          const pick = random();
          const key = `${w}-${i}`;
          let op: Op;
          if (pick < 0.25) op = { kind: 'customer', key: `acc-${key}`, reply: null };
          else if (pick < 0.4) op = { kind: 'link', key: `link-${key}@example.com`, reply: null };
          else if (pick < 0.5) op = { kind: 'share', key: `share-${key}`, reply: null };
          // Every fourth purchase reuses the previous order id: the duplicate must answer 409.
          else op = { kind: 'purchase', key: `order-${w}-${pick < 0.6 && i > 0 ? i - 1 : i}`, reply: null };
          ops.push(op);
          const body =
            op.kind === 'customer'
              ? ['/v2/customers', { account_id: op.key }]
              : op.kind === 'link'
                ? ['/v2/personal_referral_links', { widget_id: widget.id, email_address: op.key }]
                : op.kind === 'share'
                  ? [
                      '/v2/shares',
                      { widget_id: widget.id, reward_email_address: 'adv@example.com', email_recipients: [`${op.key}@example.com`], send_reminder: true },
                    ]
                  : ['/v2/purchases', { order_id: op.key, referral_code: codes[Math.floor(random() * codes.length)] }];
          try {
            op.reply = await send(service.url, 'POST', body[0] as string, body[1], token);
          } catch {
            return; // the connection died with the process
          }
        }
      };
      const writers = Array.from({ length: 6 }, (_, w) => writer(w));
      await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * 1200)));
      service.child.kill('SIGKILL');
      killed = true;
      await service.exited;
      await Promise.all(writers);
      const acknowledged = ops.filter((o) => o.reply && o.reply.status >= 200 && o.reply.status < 300);
      expect(acknowledged.length).toBeGreaterThan(5);
      expect(ops.filter((o) => o.reply && o.reply.status >= 500)).toEqual([]);

      service = await startServiceProcess(dist, dataDir, env);
      try {
        const get = async (path: string) => (await send(service.url, 'GET', path, undefined, token)).body;
        for (const op of acknowledged.filter((o) => o.kind === 'customer')) {
          expect({ account: op.key, count: (await get(`/v2/customers?account_id=${op.key}`)).results_count }).toEqual({ account: op.key, count: 1 });
        }
        for (const op of acknowledged.filter((o) => o.kind === 'link')) {
          expect((await get(`/v2/personal_referral_links?email_address=${encodeURIComponent(op.key)}`)).results_count).toBe(1);
        }
        const shares = acknowledged.filter((o) => o.kind === 'share').map((o) => o.reply!.body.share.id as number);
        for (const id of shares) expect((await send(service.url, 'GET', `/v2/shares/${id}`, undefined, token)).status).toBe(200);
        // Every order id: at most one purchase, exactly one when any request for it got a 2xx.
        const orders = new Map<string, Op[]>();
        for (const op of ops.filter((o) => o.kind === 'purchase')) orders.set(op.key, [...(orders.get(op.key) ?? []), op]);
        const purchases: { id: number }[] = [];
        for (const [orderId, attempts] of orders) {
          const found = (await get(`/v2/purchases?order_id=${orderId}`)).results;
          const created = attempts.filter((a) => a.reply?.status === 201);
          expect({ orderId, atMostOne: found.length <= 1, created: created.length <= 1 }).toEqual({ orderId, atMostOne: true, created: true });
          if (created.length === 1) expect({ orderId, found: found.length }).toEqual({ orderId, found: 1 });
          purchases.push(...found);
        }
        const conversions = (await get('/v2/conversions?limit=100')).results as { purchase: string; id: number }[];
        const byPurchase = new Map<string, number>();
        for (const c of conversions) byPurchase.set(c.purchase, (byPurchase.get(c.purchase) ?? 0) + 1);
        expect([...byPurchase.values()].every((n) => n === 1)).toBe(true);
        const rewards = (await get('/v2/rewards?limit=100')).results as { conversion: string }[];
        expect(new Set(rewards.map((r) => r.conversion)).size).toBe(rewards.length);
        // The audit trail lists every event of the merchant's log, once: what the kill kept from the
        // index was completed at start-up, and what is appended since is indexed before a read.
        const file = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
        const logged = (file.prepare('SELECT position, data, metadata FROM events').all() as { position: number; data: string; metadata: string }[])
          .filter((row) => merchantOf({ data: JSON.parse(row.data), metadata: JSON.parse(row.metadata) }) === merchant.id)
          .map((row) => String(row.position));
        file.close();
        const trail: string[] = [];
        for (let path: string | null = '/v2/audit/events?limit=100'; path;) {
          const page = (await get(path)) as { results: { position: string }[]; next_page: string | null };
          trail.push(...page.results.map((entry) => entry.position));
          path = page.next_page && new URL(page.next_page).pathname + new URL(page.next_page).search;
        }
        expect(logged.filter((position) => !trail.includes(position))).toEqual([]);
        // And the index file itself is a prefix of the log: no event at or below its watermark lacks its rows.
        const index = new Database(join(dataDir, 'events.sqlite-index'), { readonly: true });
        index.exec(`ATTACH DATABASE '${join(dataDir, 'events.sqlite')}' AS log`);
        const watermark = index.prepare("SELECT position FROM event_index_meta WHERE name = 'event_index'").pluck().get() as number;
        const unindexed = (
          index
            .prepare(
              "SELECT position, data, metadata FROM log.events WHERE position <= ? AND position NOT IN (SELECT position FROM event_index WHERE entity = '*')",
            )
            .all(watermark) as {
            position: number;
            data: string;
            metadata: string;
          }[]
        ).filter((row) => merchantOf({ data: JSON.parse(row.data), metadata: JSON.parse(row.metadata) }) !== undefined);
        index.close();
        expect(watermark).toBeGreaterThan(0);
        expect(unindexed.map((row) => row.position)).toEqual([]);
        // Pending work resumes: every conversion's webhook and reward, every share's reminder.
        await eventually(async () => {
          for (const p of purchases) expect(deliveries.get(String(p.id)) ?? 0).toBeGreaterThanOrEqual(1);
          expect((await get('/v2/rewards?limit=100')).results_count).toBe(conversions.length);
          const allShares = (await get('/v2/shares?limit=100')).results_count as number;
          expect((await get('/v2/reminder_emails?limit=100')).results_count).toBe(allShares);
        }, 15_000);
      } finally {
        service.child.kill('SIGTERM');
        await service.exited;
      }
    }, 60_000);
  }
});
