/**
 * Security review of customer-token shares (issue 28, items 5, 7, 8, 9): each finding reproduced
 * through the Nest app, now refused, while merchant calls keep their documented behaviour.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/platform/clock.js';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { recordCommits } from '../support/commits.js';
import { Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

const DAY = 24 * 60 * 60 * 1000;
const env = { REMINDER_DELAY_MS: String(3 * DAY), SCHEDULER_TICK_MS: '20' };
const PHISHING = 'Your account is suspended. Verify at https://evil.example/login';

interface Advocate {
  id: number;
  email: string;
  auth: { auth: string };
}

/** A customer of the merchant and a customer token for it (from 127.0.0.1, as every request here). */
async function advocate(service: Service, m: TestMerchant, accountId: string): Promise<Advocate> {
  const email = `${accountId}@example.com`;
  const customer = (await service.post('/v2/customers', { account_id: accountId, email_address: email }, { auth: m.bearer })).body.customer;
  const token = await service.post('/v2/tokens/customer', { customer_id: customer.id }, { auth: m.bearer });
  expect(token.status).toBe(200);
  return { id: customer.id, email, auth: { auth: `Bearer ${token.body.token}` } };
}

const recipients = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}@friends.example`);

async function outbox(service: Service, m: TestMerchant): Promise<{ to: string; kind: string; text: string }[]> {
  return (await service.get(`/admin/merchants/${m.id}/outbox?limit=100`, service.admin)).body.results;
}

async function sharesOf(service: Service, m: TestMerchant): Promise<{ id: number; ip_address: string | null; message: string | null }[]> {
  return (await service.get('/v2/shares?limit=100', { auth: m.bearer })).body.results;
}

describe('customer-token shares (security review, issue 28)', () => {
  const clock = new ManualClock(new Date('2026-11-28T10:00:00.000Z'));
  let service: Service;
  let m: TestMerchant;
  let widget: { id: number };
  beforeAll(async () => {
    service = await Service.start({ clock, env });
    m = await createMerchant(service);
    widget = await createWidget(service, m, { published: true });
  });
  afterAll(async () => {
    await service.stop();
  });

  it("item 5: refuses a share sent under another address (the merchant's support address) and records nothing", async () => {
    const ann = await advocate(service, m, 'ann');
    const watch = recordCommits(service.app.get<EventStore>(EVENT_STORE));
    const r = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: 'support@shop.example', email_recipients: recipients('spoof', 50), message: 'Hello' },
      ann.auth,
    );
    watch.restore();
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ errors: ["a customer token can only share from its customer's own email address (reward_email_address)"] });
    expect(watch.commits).toEqual([]);
    expect(await outbox(service, m)).toEqual([]);
    // The customer's own address, in any case, is taken; a merchant token still shares from any address.
    expect(
      (await service.post('/v2/shares', { widget_id: widget.id, reward_email_address: 'ANN@example.com', email_recipients: ['one@friends.example'] }, ann.auth))
        .status,
    ).toBe(201);
    expect(
      (
        await service.post(
          '/v2/shares',
          { widget_id: widget.id, reward_email_address: 'support@shop.example', email_recipients: ['two@friends.example'] },
          { auth: m.bearer },
        )
      ).status,
    ).toBe(201);
  });

  it('item 5: refuses a message with a link from a customer token by default (plain), names the field, records nothing', async () => {
    const bea = await advocate(service, m, 'bea');
    const before = (await outbox(service, m)).length;
    const watch = recordCommits(service.app.get<EventStore>(EVENT_STORE));
    const r = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: bea.email, email_recipients: ['x@friends.example'], message: PHISHING },
      bea.auth,
    );
    watch.restore();
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ property: 'message', code: 'invalid', message: expect.stringMatching(/plain text without links/) }]);
    expect(watch.commits).toEqual([]);
    expect(await outbox(service, m)).toHaveLength(before);
    // Plain text goes out as written; a merchant token's message is not filtered.
    expect(
      (
        await service.post(
          '/v2/shares',
          { widget_id: widget.id, reward_email_address: bea.email, email_recipients: ['plain@friends.example'], message: 'You will love these tents.' },
          bea.auth,
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await service.post(
          '/v2/shares',
          {
            widget_id: widget.id,
            reward_email_address: 'shop@shop.example',
            email_recipients: ['news@friends.example'],
            message: 'See https://shop.example/sale',
          },
          { auth: m.bearer },
        )
      ).status,
    ).toBe(201);
    const texts = (await outbox(service, m)).map((x) => x.text);
    expect(texts.some((t) => t.includes('You will love these tents.'))).toBe(true);
    expect(texts.some((t) => t.includes('See https://shop.example/sale'))).toBe(true);
  });

  it("item 5: the message policy is the merchant's: off drops the text, free keeps links", async () => {
    const cal = await advocate(service, m, 'cal');
    expect(
      (await service.patch(`/admin/merchants/${m.id}`, { customer_share_message_policy: 'off' }, service.admin)).body.merchant.customer_share_message_policy,
    ).toBe('off');
    const off = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: cal.email, email_recipients: ['off@friends.example'], message: 'Plain words, dropped anyway' },
      cal.auth,
    );
    expect(off.status).toBe(201);
    expect(off.body.share.message).toBeNull();
    expect((await outbox(service, m)).find((x) => x.to === 'off@friends.example')!.text).not.toContain('Plain words');
    expect((await service.patch(`/admin/merchants/${m.id}`, { customer_share_message_policy: 'free' }, service.admin)).status).toBe(200);
    const free = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: cal.email, email_recipients: ['free@friends.example'], message: 'Look: https://shop.example/tents' },
      cal.auth,
    );
    expect(free.status).toBe(201);
    expect((await outbox(service, m)).find((x) => x.to === 'free@friends.example')!.text).toContain('https://shop.example/tents');
    expect((await service.patch(`/admin/merchants/${m.id}`, { customer_share_message_policy: 'loose' }, service.admin)).status).toBe(400);
    expect((await service.patch(`/admin/merchants/${m.id}`, { customer_share_message_policy: 'plain' }, service.admin)).status).toBe(200);
  });

  it('item 7: refuses link_parameters from a customer token on shares as on personal links (403), and records nothing', async () => {
    const dan = await advocate(service, m, 'dan');
    const params = { x: 'OVERRIDDEN', next: 'https://evil.example/phish' };
    const watch = recordCommits(service.app.get<EventStore>(EVENT_STORE));
    const share = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: dan.email, email_recipients: ['p@friends.example'], link_parameters: params },
      dan.auth,
    );
    const link = await service.post('/v2/personal_referral_links', { widget_id: widget.id, link_parameters: params }, dan.auth);
    watch.restore();
    expect(share.status).toBe(403);
    expect(link.status).toBe(403);
    expect(share.body).toEqual({ errors: ['a customer token cannot set link_parameters'] });
    expect(share.body).toEqual(link.body);
    expect(watch.commits).toEqual([]);
    // The merchant still sets them on a share.
    const merchants = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: 'shop@shop.example', email_recipients: ['q@friends.example'], link_parameters: { x: '1' } },
      { auth: m.bearer },
    );
    expect(merchants.status).toBe(201);
    expect(merchants.body.share.link_parameters).toBe('{"x":"1"}');
  });

  it('item 8: a forged ip_address is refused, and a self-referral through a customer-token share is rejected same_ip', async () => {
    const strict = await createWidget(service, m, { name: 'Strict', published: true, fraud_checks: { same_ip: true } });
    const eve = await advocate(service, m, 'eve');
    const forged = await service.post(
      '/v2/shares',
      { widget_id: strict.id, reward_email_address: eve.email, email_recipients: ['self@friends.example'], ip_address: '198.51.100.77' },
      eve.auth,
    );
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual({ errors: ['a customer token cannot set ip_address'] });
    const created = await service.post(
      '/v2/shares',
      { widget_id: strict.id, reward_email_address: eve.email, email_recipients: ['self@friends.example'] },
      eve.auth,
    );
    expect(created.status).toBe(201);
    // The request's address, as on a personal link.
    expect(created.body.share.ip_address).toBe('127.0.0.1');
    const code = String(created.body.share.referral_link).split('/').pop();
    const purchase = await service.post(
      '/v2/purchases',
      { order_id: 'SELF-1', referral_code: code, payment_amount: 80, email_address: 'other@elsewhere.example', ip_address: '127.0.0.1' },
      { auth: m.bearer },
    );
    expect(purchase.status).toBe(201);
    const reward = await eventually(async () => {
      const found = (await service.get(`/v2/rewards?customer_id=${eve.id}&limit=100`, { auth: m.bearer })).body.results;
      expect(found).toHaveLength(1);
      return found[0];
    });
    expect(reward).toMatchObject({ status: 'rejected', rejected_reasons: ['same_ip'] });
    // A merchant token still reports the device's address in the body (its server is not the device).
    const merchants = await service.post(
      '/v2/shares',
      { widget_id: strict.id, reward_email_address: 'shop@shop.example', email_recipients: ['m@friends.example'], ip_address: '203.0.113.9' },
      { auth: m.bearer },
    );
    expect(merchants.body.share.ip_address).toBe('203.0.113.9');
  });

  it.each([
    ['archived', { published: true, archived: true }],
    ['unpublished', { published: false }],
    ['inactive', { published: true, active: false }],
  ])('item 9: a customer token cannot use an %s widget (404, nothing recorded); a merchant token still can', async (what, flags) => {
    const hidden = await createWidget(service, m, { name: `Hidden ${what}`, reward_amount: 500, ...flags });
    const fay = await advocate(service, m, `fay-${what}`);
    const watch = recordCommits(service.app.get<EventStore>(EVENT_STORE));
    const link = await service.post('/v2/personal_referral_links', { widget_id: hidden.id }, fay.auth);
    const share = await service.post(
      '/v2/shares',
      { widget_id: hidden.id, reward_email_address: fay.email, email_recipients: ['h@friends.example'] },
      fay.auth,
    );
    watch.restore();
    for (const r of [link, share]) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ errors: [`widget ${hidden.id} not found among the published, active widgets`] });
    }
    expect(watch.commits).toEqual([]);
    // Told apart from nothing: an unknown id answers the same.
    expect((await service.post('/v2/personal_referral_links', { widget_id: 999_999_999 }, fay.auth)).body).toEqual({
      errors: ['widget 999999999 not found among the published, active widgets'],
    });
    // docs/api-decisions.md: the flags stop nothing for the merchant.
    expect((await service.post('/v2/personal_referral_links', { widget_id: hidden.id, customer_id: fay.id }, { auth: m.bearer })).status).toBe(201);
    expect(
      (
        await service.post(
          '/v2/shares',
          { widget_id: hidden.id, customer_id: fay.id, reward_email_address: fay.email, email_recipients: ['h@friends.example'] },
          { auth: m.bearer },
        )
      ).status,
    ).toBe(201);
    // And the customer token works on a widget on offer.
    expect((await service.post('/v2/personal_referral_links', { widget_id: widget.id }, fay.auth)).status).toBe(201);
  });
});

describe('share recipient limits (issue 28, item 5)', () => {
  it('holds 50 recipients per customer per UTC day: the 10 × 50 burst gets one share out, the rest 429 with Retry-After, also after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'referral-e2e-'));
    const clock = new ManualClock(new Date('2026-11-28T18:00:00.000Z'));
    let service = await Service.start({ clock, env, dataDir });
    try {
      const m = await createMerchant(service);
      const widget = await createWidget(service, m, { published: true });
      const ann = await advocate(service, m, 'ann');
      const burst = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          service.post(
            '/v2/shares',
            {
              widget_id: widget.id,
              reward_email_address: ann.email,
              email_recipients: recipients(`burst${i}`, 50),
              message: 'Great tents',
              send_reminder: true,
            },
            ann.auth,
          ),
        ),
      );
      expect(burst.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(429)]);
      for (const refused of burst.filter((r) => r.status === 429)) {
        expect(refused.headers.get('retry-after')).toBe(String(6 * 60 * 60));
        expect(refused.body).toEqual({ errors: [expect.stringContaining('50 email recipients per customer per day (UTC)')] });
      }
      expect(await outbox(service, m)).toHaveLength(50);
      expect(await sharesOf(service, m)).toHaveLength(1);
      // One share scheduled a reminder: the refused ones scheduled none.
      expect(
        (await service.get('/v2/shares?limit=100', { auth: m.bearer })).body.results.filter((s: { send_reminder: boolean }) => s.send_reminder),
      ).toHaveLength(1);

      await service.stop(true);
      service = await Service.start({ clock, env, dataDir });
      const again = await advocate(service, m, 'ann');
      const afterRestart = await service.post(
        '/v2/shares',
        { widget_id: widget.id, reward_email_address: ann.email, email_recipients: ['late@friends.example'] },
        again.auth,
      );
      expect(afterRestart.status).toBe(429);
      expect(afterRestart.headers.get('retry-after')).toBe(String(6 * 60 * 60));

      // Another customer has its own 50; the next UTC day starts over.
      const bob = await advocate(service, m, 'bob');
      expect(
        (await service.post('/v2/shares', { widget_id: widget.id, reward_email_address: bob.email, email_recipients: recipients('bob', 50) }, bob.auth)).status,
      ).toBe(201);
      clock.set(new Date('2026-11-29T00:00:00.000Z'));
      const nextDay = await advocate(service, m, 'ann');
      expect(
        (await service.post('/v2/shares', { widget_id: widget.id, reward_email_address: ann.email, email_recipients: ['late@friends.example'] }, nextDay.auth))
          .status,
      ).toBe(201);
    } finally {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("holds the merchant's own limits, set through the admin API, over every advocate and the merchant's token", async () => {
    const clock = new ManualClock(new Date('2026-11-28T23:59:00.000Z'));
    const service = await Service.start({ clock, env });
    try {
      const m = await createMerchant(service);
      const widget = await createWidget(service, m, { published: true });
      const patched = await service.patch(
        `/admin/merchants/${m.id}`,
        { share_recipients_per_customer_per_day: 5, share_recipients_per_merchant_per_day: 12 },
        service.admin,
      );
      expect(patched.status).toBe(200);
      expect(patched.body.merchant).toMatchObject({
        share_recipients_per_customer_per_day: 5,
        share_recipients_per_merchant_per_day: 12,
        customer_share_message_policy: 'plain',
      });
      for (const bad of [
        { share_recipients_per_customer_per_day: 0 },
        { share_recipients_per_merchant_per_day: 'many' },
        { share_recipients_per_customer_per_day: null },
      ]) {
        expect((await service.patch(`/admin/merchants/${m.id}`, bad, service.admin)).status).toBe(400);
      }
      const ann = await advocate(service, m, 'ann');
      const bob = await advocate(service, m, 'bob');
      const share = (a: Advocate, n: number) =>
        service.post('/v2/shares', { widget_id: widget.id, reward_email_address: a.email, email_recipients: recipients(`${a.id}-${n}`, n) }, a.auth);
      expect((await share(ann, 5)).status).toBe(201);
      const annOver = await share(ann, 1);
      expect(annOver.status).toBe(429);
      expect(annOver.body.errors[0]).toMatch(/5 email recipients per customer per day/);
      expect(annOver.headers.get('retry-after')).toBe('60');
      expect((await share(bob, 5)).status).toBe(201);
      // The merchant's own shares count towards its total (10 so far): 3 more is past 12.
      const merchantOver = await service.post(
        '/v2/shares',
        { widget_id: widget.id, reward_email_address: 'shop@shop.example', email_recipients: recipients('shop', 3) },
        { auth: m.bearer },
      );
      expect(merchantOver.status).toBe(429);
      expect(merchantOver.body.errors[0]).toMatch(/12 email recipients per merchant per day/);
      expect(
        (
          await service.post(
            '/v1/shares',
            { campaign_id: widget.id, reward_email_address: 'shop@shop.example', email_recipients: recipients('v1', 2) },
            { auth: m.basic },
          )
        ).status,
      ).toBe(201);
      expect(await outbox(service, m)).toHaveLength(12);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('applies the policy in force when the reminder goes out: a link allowed then is dropped once the merchant tightens it', async () => {
    const clock = new ManualClock(new Date('2026-11-20T08:00:00.000Z'));
    const service = await Service.start({ clock, env });
    try {
      const m = await createMerchant(service);
      const widget = await createWidget(service, m, { published: true });
      await service.patch(`/admin/merchants/${m.id}`, { customer_share_message_policy: 'free' }, service.admin);
      const ann = await advocate(service, m, 'ann');
      const created = await service.post(
        '/v2/shares',
        { widget_id: widget.id, reward_email_address: ann.email, email_recipients: ['rem@friends.example'], message: PHISHING, send_reminder: true },
        ann.auth,
      );
      expect(created.status).toBe(201);
      expect((await outbox(service, m))[0].text).toContain('evil.example');
      await service.patch(`/admin/merchants/${m.id}`, { customer_share_message_policy: 'plain' }, service.admin);
      clock.advance(3 * DAY);
      const reminder = await eventually(async () => {
        const found = (await outbox(service, m)).filter((x) => x.kind === 'reminder_email');
        expect(found).toHaveLength(1);
        return found[0];
      });
      expect(reminder.text).not.toContain('evil.example');
      expect(reminder.text).toContain('shared an offer with you');
    } finally {
      await service.stop();
    }
  }, 60_000);
});
