/** Custom reward validation against a real receiver on 127.0.0.1: approve, reject, exhausted. */
import { createHmac } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandRunner } from '../../src/platform/command-runner.js';
import { EVENT_STORE, EventStore, NewEvent } from '../../src/platform/event-store/event-store.js';
import { DUE_PER_PASS } from '../../src/platform/projections/due-queue.js';
import { Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

describe('custom reward validation callback', () => {
  let service: Service;
  let m: TestMerchant;
  let receiver: Server;
  let url: string;
  const received: Received[] = [];
  let answer: (body: unknown) => { status: number; body: string } | Promise<{ status: number; body: string }> = () => ({ status: 200, body: '{}' });

  /** Requests to /hang get no answer while `hang` is on (then 500). */
  const hanging: import('node:http').ServerResponse[] = [];
  let hang = true;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      if (req.url === '/hang') {
        if (hang) hanging.push(res);
        else res.writeHead(500).end();
        return;
      }
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        received.push({ headers: req.headers, body });
        const reply = await answer(JSON.parse(body));
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/validate`;
    service = await Service.start({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_INTERVAL_MS: '100', WEBHOOK_RETRY_WINDOW_MS: '300', SCHEDULER_TICK_MS: '20' },
    });
    m = await createMerchant(service);
    expect((await service.put(`/admin/merchants/${m.id}/client_api`, { share_instructions_url: null, reward_validation_url: url }, service.admin)).status).toBe(
      200,
    );
  });
  afterAll(async () => {
    await service.stop();
    await new Promise((r) => receiver.close(r));
  });

  async function pendingReward(accountId: string) {
    const widget = await createWidget(service, m);
    const customer = (await service.post('/v2/customers', { account_id: accountId, email_address: `${accountId}@example.com` }, { auth: m.bearer })).body
      .customer;
    const code = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, { auth: m.bearer })).body.referral_link
      .code;
    await service.post('/v2/purchases', { order_id: `o-${accountId}`, referral_code: code }, { auth: m.bearer });
    return { customer };
  }

  const rewardOf = async (customerId: number) => (await service.get(`/v2/rewards?customer_id=${customerId}`, { auth: m.bearer })).body.results[0];

  it('approves on 200, signing the request with X-SERVICE-SIGNATURE-V2', async () => {
    answer = () => ({ status: 200, body: '' });
    const { customer } = await pendingReward('approve-me');
    const reward = await eventually(async () => {
      const r = await rewardOf(customer.id);
      expect(r.status).toBe('approved');
      return r;
    });
    const request = received.find((x) => JSON.parse(x.body).reward?.reward_id === reward.id)!;
    const expected = createHmac('sha1', m.secretKey).update(request.body).digest('base64');
    expect(request.headers['x-service-signature-v2']).toBe(expected);
    expect(request.headers['x-service-signature']).toBeUndefined();
    expect(JSON.parse(request.body)).toMatchObject({
      type: 'reward_validation',
      reward: { reward_id: reward.id, advocate_customer_id: customer.id, amount: 10 },
    });
  });

  it('rejects when the 200 answer says approved: false', async () => {
    answer = () => ({ status: 200, body: JSON.stringify({ approved: false, reason: 'known fraudster' }) });
    const { customer } = await pendingReward('reject-me');
    const reward = await eventually(async () => {
      const r = await rewardOf(customer.id);
      expect(r).toMatchObject({ status: 'rejected', rejected_reasons: ['validation_callback_rejected'] });
      return r;
    });
    // The merchant's own reason is kept beside the code (admin view).
    expect((await service.get(`/admin/merchants/${m.id}/rewards/${reward.id}`, service.admin)).body.reward).toMatchObject({
      decision_reason: 'known fraudster',
      decided_by: null,
    });
  });

  it('retries failures on the schedule and rejects with validation_callback_failed when the window runs out', async () => {
    const before = received.length;
    answer = () => ({ status: 500, body: '{}' });
    const { customer } = await pendingReward('never-answered');
    expect((await rewardOf(customer.id)).status).toBe('pending');
    const reward = await eventually(async () => {
      const r = await rewardOf(customer.id);
      expect(r).toMatchObject({ status: 'rejected', rejected_reasons: ['validation_callback_failed'] });
      return r;
    });
    const attempts = received.slice(before).filter((x) => JSON.parse(x.body).reward?.reward_id === reward.id);
    // First attempt, then one per 100 ms interval while within 300 ms: 0, 100, 200, 300 ms (the last at the
    // window's end, sent a moment after it).
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    const admin = (await service.get(`/admin/merchants/${m.id}/rewards/${reward.id}`, service.admin)).body.reward;
    expect(admin.validation_attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 500]);
  });

  /** The merchant's callback answers 200 only once released; `wasAsked` resolves when it is called. */
  function holdCallback() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    answer = async () => {
      asked();
      await released;
      return { status: 200, body: '' };
    };
    return { wasAsked, release };
  }

  it('does not count a reward rejected by hand while its callback was in flight against the cap', async () => {
    const { wasAsked, release } = holdCallback();
    const widget = await createWidget(service, m, { reward_criteria: { max_rewards_per_advocate: 1 } });
    const customer = (await service.post('/v2/customers', { account_id: 'raced', email_address: 'raced@example.com' }, { auth: m.bearer })).body.customer;
    const code = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, { auth: m.bearer })).body.referral_link
      .code;
    await service.post('/v2/purchases', { order_id: 'race-1', referral_code: code }, { auth: m.bearer });
    await wasAsked;
    const first = await rewardOf(customer.id);
    const rejected = await service.post(`/admin/merchants/${m.id}/rewards/${first.id}/reject`, { by: 'ops@shop.example', reason: 'refunded' }, service.admin);
    expect(rejected.body.reward.status).toBe('rejected');
    answer = () => ({ status: 200, body: '' });
    release();
    // The late approval finds the reward decided: nothing of it is recorded, no count against the cap.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const trail = (await service.get(`/v2/audit/entities/reward:${first.id}`, { auth: m.bearer })).body.results.map((e: { type: string }) => e.type);
    expect(trail).not.toContain('AdvocateRewardCounted');
    expect(trail).not.toContain('RewardApproved');
    await service.post('/v2/purchases', { order_id: 'race-2', referral_code: code }, { auth: m.bearer });
    await eventually(async () => {
      const rewards = (await service.get(`/v2/rewards?customer_id=${customer.id}`, { auth: m.bearer })).body.results;
      expect(rewards.map((r: { status: string }) => r.status).sort()).toEqual(['approved', 'rejected']);
    });
  });

  it('shows a reward rejected by hand as manually_rejected in v1 and v2, and no reasons once approved by hand', async () => {
    const { wasAsked, release } = holdCallback();
    const { customer } = await pendingReward('rejected-by-hand');
    await wasAsked;
    const pending = await rewardOf(customer.id);
    expect(pending).toMatchObject({ status: 'pending', rejected_reasons: [] });
    const rejected = await service.post(
      `/admin/merchants/${m.id}/rewards/${pending.id}/reject`,
      { by: 'ops@shop.example', reason: 'order refunded' },
      service.admin,
    );
    expect(rejected.body.reward).toMatchObject({
      status: 'rejected',
      rejected_reasons: ['manually_rejected'],
      decided_by: 'ops@shop.example',
      decision_reason: 'order refunded',
    });
    answer = () => ({ status: 200, body: '' });
    release();
    const shown = async () => {
      const v2 = (await service.get(`/v2/rewards/${pending.id}`, { auth: m.bearer })).body.reward;
      const v1 = (await service.get(`/v1/rewards/${pending.id}`, { auth: m.basic })).body;
      return [v2, v1].map((r: { status: string; rejected_reasons: string[] }) => [r.status, r.rejected_reasons]);
    };
    expect(await shown()).toEqual([
      ['rejected', ['manually_rejected']],
      ['rejected', ['manually_rejected']],
    ]);
    // The late approval of the callback finds it decided; an admin may still approve it, and an approved reward lists no reasons.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await shown())[0]).toEqual(['rejected', ['manually_rejected']]);
    expect(
      (await service.post(`/admin/merchants/${m.id}/rewards/${pending.id}/approve`, { by: 'ops@shop.example', reason: 'refund undone' }, service.admin)).status,
    ).toBe(200);
    expect(await shown()).toEqual([
      ['approved', []],
      ['approved', []],
    ]);
  });

  it("approves by hand taking the advocate ledger before the reward, as the callback's completion does (the other order deadlocked)", async () => {
    const widget = await createWidget(service, m, { reward_validation_url: url.replace('/validate', '/hang') });
    const customer = (await service.post('/v2/customers', { account_id: 'by-hand', email_address: 'by-hand@example.com' }, { auth: m.bearer })).body.customer;
    const code = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, { auth: m.bearer })).body.referral_link
      .code;
    const held = hanging.length;
    await service.post('/v2/purchases', { order_id: 'by-hand-1', referral_code: code }, { auth: m.bearer });
    // The callback is in flight (held): the reward is pending, and nothing else decides it now.
    await eventually(async () => expect(hanging.length).toBe(held + 1));
    const reward = await rewardOf(customer.id);
    expect(reward.status).toBe('pending');
    const runner = service.app.get(CommandRunner) as unknown as { takeTurn: (stream: string) => Promise<() => void> };
    const takeTurn = runner.takeTurn;
    const taken: string[] = [];
    runner.takeTurn = function (this: unknown, stream: string) {
      taken.push(stream);
      return takeTurn.call(this, stream);
    };
    try {
      const approved = await service.post(`/admin/merchants/${m.id}/rewards/${reward.id}/approve`, { by: 'ops' }, service.admin);
      expect(approved.status).toBe(200);
    } finally {
      runner.takeTurn = takeTurn;
    }
    expect(taken.map((stream) => (stream.startsWith('reward-of-conversion-') ? 'reward' : stream.startsWith('advocate-rewards-') ? 'ledger' : stream))).toEqual(
      ['ledger', 'reward'],
    );
    expect((await rewardOf(customer.id)).status).toBe('approved');
  });

  it("is not held up by another merchant's endpoint that hangs", async () => {
    answer = () => ({ status: 200, body: '' });
    const slow = await createMerchant(service, 'Slow');
    const hangUrl = url.replace('/validate', '/hang');
    expect(
      (await service.put(`/admin/merchants/${slow.id}/client_api`, { share_instructions_url: null, reward_validation_url: hangUrl }, service.admin)).status,
    ).toBe(200);
    const slowWidget = await createWidget(service, slow);
    const slowAdvocate = (await service.post('/v2/customers', { account_id: 'slow-adv', email_address: 'slow@example.com' }, { auth: slow.bearer })).body
      .customer;
    const slowCode = (await service.post('/v2/personal_referral_links', { widget_id: slowWidget.id, customer_id: slowAdvocate.id }, { auth: slow.bearer })).body
      .referral_link.code;
    await service.post('/v2/purchases', { order_id: 'slow-1', referral_code: slowCode }, { auth: slow.bearer });
    await eventually(async () => expect(hanging).toHaveLength(1));
    // The slow merchant's call now waits for its timeout (10 s); this merchant's is answered at once.
    const { customer } = await pendingReward('not-held-up');
    await eventually(async () => expect((await rewardOf(customer.id)).status).toBe('approved'), 3000);
    // Let the slow call fail now, and its retries too, so that nothing is in flight when the suite stops.
    hang = false;
    for (const res of hanging.splice(0)) res.destroy();
    await eventually(async () =>
      expect((await service.get(`/v2/rewards?customer_id=${slowAdvocate.id}`, { auth: slow.bearer })).body.results[0].status).toBe('rejected'),
    );
  });
});

describe('custom reward validation behind many rewards waiting for a retry', () => {
  it('asks for a reward due now although more rewards than one pass takes wait, made before it, for retries far off', async () => {
    const asked: number[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        asked.push(JSON.parse(body).reward?.reward_id);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const service = await Service.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SCHEDULER_TICK_MS: '20' } });
    try {
      const m = await createMerchant(service);
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/validate`;
      expect(
        (await service.put(`/admin/merchants/${m.id}/client_api`, { share_instructions_url: null, reward_validation_url: url }, service.admin)).status,
      ).toBe(200);
      // More pending rewards than a pass takes, made in January, each of whose last call failed and
      // scheduled its retry for 2099: none is due, and none may stand in the way of one that is.
      const waiting: NewEvent[] = [];
      for (let i = 0; i <= DUE_PER_PASS; i += 1) {
        const facts = {
          rewardId: 9e12 + i,
          merchantId: m.id,
          conversionId: 9e12 + i,
          purchaseId: 9e12 + i,
          widgetId: 1,
          advocateCustomerId: null,
          advocateEmailAddress: null,
          rewardType: 'credit',
          amount: 1,
        };
        waiting.push({ type: 'RewardPending', data: { ...facts, createdAt: '2026-01-01T00:00:00.000Z' }, metadata: { merchantId: m.id } });
        const attempt = {
          rewardId: facts.rewardId,
          merchantId: m.id,
          attempt: 1,
          at: '2026-01-01T00:00:01.000Z',
          statusCode: 500,
          error: null,
          nextAttemptAt: '2099-01-01T00:00:00.000Z',
        };
        waiting.push({ type: 'RewardValidationAttempted', data: attempt, metadata: { merchantId: m.id } });
      }
      await service.app.get<EventStore>(EVENT_STORE).append('seeded-waiting-rewards', waiting, 'no_stream');
      const widget = await createWidget(service, m);
      const customer = (await service.post('/v2/customers', { account_id: 'due-now', email_address: 'due-now@example.com' }, { auth: m.bearer })).body.customer;
      const code = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, { auth: m.bearer })).body
        .referral_link.code;
      expect((await service.post('/v2/purchases', { order_id: 'due-now-1', referral_code: code }, { auth: m.bearer })).status).toBe(201);
      const reward = await eventually(async () => {
        const r = (await service.get(`/v2/rewards?customer_id=${customer.id}`, { auth: m.bearer })).body.results[0];
        expect(r.status).toBe('approved');
        return r;
      });
      // Only the reward that was due was asked about.
      expect(asked).toEqual([reward.id]);
    } finally {
      await service.stop();
      await new Promise((r) => receiver.close(r));
    }
  });
});

describe('custom reward validation across a restart', () => {
  it('asks nothing once the retry window closed while the service was down, and rejects the reward', async () => {
    const calls: string[] = [];
    const failing = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls.push(req.url ?? '');
        res.writeHead(500).end();
      });
    });
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
    const dataDir = mkdtempSync(join(tmpdir(), 'referral-validation-window-'));
    const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_INTERVAL_MS: '300', WEBHOOK_RETRY_WINDOW_MS: '900', SCHEDULER_TICK_MS: '20' };
    let service: Service | undefined = await Service.start({ dataDir, env });
    try {
      const m = await createMerchant(service);
      const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/validate`;
      await service.put(`/admin/merchants/${m.id}/client_api`, { share_instructions_url: null, reward_validation_url: url }, service.admin);
      const widget = await createWidget(service, m);
      const customer = (await service.post('/v2/customers', { account_id: 'late', email_address: 'late@example.com' }, { auth: m.bearer })).body.customer;
      const code = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: customer.id }, { auth: m.bearer })).body
        .referral_link.code;
      await service.post('/v2/purchases', { order_id: 'late-1', referral_code: code }, { auth: m.bearer });
      await eventually(async () => expect(calls.length).toBeGreaterThanOrEqual(1));
      await service.stop(true);
      await new Promise((resolve) => setTimeout(resolve, 1200)); // the window closes while it is down
      const asked = calls.length;
      service = await Service.start({ dataDir, env });
      const s = service;
      const reward = await eventually(async () => {
        const r = (await s.get(`/v2/rewards?customer_id=${customer.id}`, { auth: m.bearer })).body.results[0];
        expect(r).toMatchObject({ status: 'rejected', rejected_reasons: ['validation_callback_failed'] });
        return r;
      });
      expect(calls).toHaveLength(asked);
      const attempts = (await s.get(`/admin/merchants/${m.id}/rewards/${reward.id}`, s.admin)).body.reward.validation_attempts as { at: string }[];
      const first = Date.parse(attempts[0].at);
      expect(attempts.every((a) => Date.parse(a.at) - first <= 900)).toBe(true);
    } finally {
      await service?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      await new Promise((r) => failing.close(r));
    }
  });
});
