import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/platform/clock.js';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { recordCommits } from '../support/commits.js';
import { Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

const DAY = 24 * 60 * 60 * 1000;
const env = { REMINDER_DELAY_MS: String(3 * DAY), SCHEDULER_TICK_MS: '20' };

describe('shares, reminder emails, opt-outs and email captures', () => {
  const clock = new ManualClock(new Date('2026-05-01T10:00:00.000Z'));
  let service: Service;
  let m: TestMerchant;
  let widget: { id: number };
  beforeAll(async () => {
    service = await Service.start({ clock, env });
    m = await createMerchant(service);
    widget = await createWidget(service, m);
  });
  afterAll(async () => {
    await service.stop();
  });
  const v2 = () => ({ auth: m.bearer });
  const outbox = async (merchant = m, query = '') =>
    (await service.get(`/admin/merchants/${merchant.id}/outbox?limit=100${query}`, service.admin)).body.results;

  it('creates an email share with its own code and emails every recipient', async () => {
    const r = await service.post(
      '/v2/shares',
      {
        widget_id: widget.id,
        reward_email_address: 'ann@example.com',
        email_recipients: ['bob@example.com', 'cy@example.com'],
        message: 'You will like this',
        ip_address: '203.0.113.5',
        link_parameters: { c: 'spring' },
      },
      v2(),
    );
    expect(r.status).toBe(201);
    const share = r.body.share;
    expect(share).toEqual({
      id: expect.any(Number),
      message: 'You will like this',
      channel: 'email',
      widget: `${service.url}/v2/widgets/${widget.id}`,
      ip_address: '203.0.113.5',
      referral_link: expect.stringMatching(new RegExp(`^${service.url}/v2/referral_links/[a-z0-9]{8}$`)),
      newsletter_opt_in: false,
      send_reminder: false,
      customer: null,
      reward_email_address: 'ann@example.com',
      link_parameters: '{"c":"spring"}',
      skipped_recipients_count: 0,
      created_at: clock.now().toISOString(),
      last_modified_at: clock.now().toISOString(),
    });
    const code = share.referral_link.split('/').pop();
    const link = await service.get(`/v2/referral_links/${code}`, v2());
    expect(link.body.referral_link).toMatchObject({ type: 'share', origin: `${service.url}/v2/shares/${share.id}` });
    const mails = await eventually(async () => {
      const list = await outbox();
      expect(list.filter((x: { status: string }) => x.status === 'delivered')).toHaveLength(2);
      return list;
    });
    expect(mails.map((x: { to: string }) => x.to).sort()).toEqual(['bob@example.com', 'cy@example.com']);
    // No SMTP_URL: kept in the outbox, nothing sent, and the outbox says so.
    expect(mails.map((x: { delivered_via: string }) => x.delivered_via)).toEqual(['outbox', 'outbox']);
    expect(mails[0].text).toContain(`/l/${code}`);
    expect(mails[0].text).toContain('You will like this');
    // Nothing reads replies: the email says what does stop them (the merchant's opt-outs).
    expect(mails[0].text).not.toMatch(/reply/i);
    expect(mails[0].text).toContain('To receive no more of these emails, ask Test shop to stop them.');
    const second = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['bob@example.com'] },
      v2(),
    );
    expect(second.body.share.referral_link).not.toBe(share.referral_link);
  });

  it('shows email_recipients only to a merchant permitted to see them', async () => {
    const shop = await createMerchant(service, 'Recipients shop');
    const w = await createWidget(service, shop);
    const made = await service.post(
      '/v2/shares',
      { widget_id: w.id, reward_email_address: 'a@example.com', email_recipients: ['b@example.com'] },
      { auth: shop.bearer },
    );
    expect(made.body.share).not.toHaveProperty('email_recipients');
    await service.patch(`/admin/merchants/${shop.id}`, { can_see_recipients: true }, service.admin);
    const read = await service.get(`/v2/shares/${made.body.share.id}`, { auth: shop.bearer });
    expect(read.body.share.email_recipients).toEqual(['b@example.com']);
  });

  it('never emails an opted-out address, and says how many were skipped', async () => {
    const job = await service.post('/v2/email_opt_out_jobs', { email_addresses: ['Quiet@Example.com', 'also@example.com'] }, v2());
    expect(job.status).toBe(202);
    expect(job.body.email_opt_out_job).toMatchObject({ status: 'processing', email_addresses_count: 2 });
    const done = await eventually(async () => {
      const r = await service.get(`/v2/email_opt_out_jobs/${job.body.email_opt_out_job.id}`, v2());
      expect(r.body.email_opt_out_job.status).toBe('completed');
      return r.body.email_opt_out_job;
    });
    expect(done).toMatchObject({ opted_out_count: 2, already_opted_out_count: 0 });
    const listed = await service.get('/v2/email_opt_outs?email_address=quiet@example.com', v2());
    expect(listed.body.results.map((o: { email_address: string }) => o.email_address)).toEqual(['quiet@example.com']);
    const r = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['quiet@example.com', 'loud@example.com'] },
      v2(),
    );
    expect(r.body.share.skipped_recipients_count).toBe(1);
    await eventually(async () => expect((await outbox(m, '&recipient=loud@example.com')).map((x: { status: string }) => x.status)).toEqual(['delivered']));
    expect(await outbox(m, '&recipient=quiet@example.com')).toEqual([]);
    // The count is of distinct addresses: the same one in two cases is one.
    const again = await service.post('/v2/email_opt_out_jobs', { email_addresses: ['quiet@example.com', 'QUIET@example.com'] }, v2());
    expect(again.body.email_opt_out_job.email_addresses_count).toBe(1);
    await eventually(async () => {
      const j = (await service.get(`/v2/email_opt_out_jobs/${again.body.email_opt_out_job.id}`, v2())).body.email_opt_out_job;
      expect(j).toMatchObject({ status: 'completed', email_addresses_count: 1, opted_out_count: 0, already_opted_out_count: 1 });
    });
    expect((await service.delete('/v2/email_opt_outs/quiet@example.com', undefined, v2())).status).toBe(200);
    expect((await service.delete('/v2/email_opt_outs/quiet@example.com', undefined, v2())).status).toBe(404);
    expect((await service.post('/v2/email_opt_out_jobs', { email_addresses: ['not-an-email'] }, v2())).status).toBe(400);
    expect((await service.post('/v2/email_opt_out_jobs', { email_addresses: [] }, v2())).status).toBe(400);
    const stranger = await createMerchant(service);
    expect((await service.get(`/v2/email_opt_out_jobs/${job.body.email_opt_out_job.id}`, { auth: stranger.bearer })).status).toBe(404);
  });

  it('names each bad address of an opt-out job by its index: the first 20, and a count of the rest', async () => {
    const addresses = Array.from({ length: 10_000 }, (_, i) => `friend-${i}@example.com`);
    addresses[3] = 'not-an-email';
    for (const [path, auth] of [
      ['/v2/email_opt_out_jobs', v2()],
      ['/v1/email_opt_out_jobs', { auth: m.basic }],
    ] as const) {
      const one = await service.post(path, { email_addresses: addresses }, auth);
      expect(one.status).toBe(400);
      expect(one.body.errors).toEqual([{ property: 'email_addresses.3', code: 'invalid', message: 'email_addresses.3 must be an email' }]);
    }
    const many = addresses.map((a, i) => (i % 400 === 7 ? `bad-${i}` : i === 3 ? 'friend-3@example.com' : a));
    const reply = await service.post('/v2/email_opt_out_jobs', { email_addresses: many }, v2());
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toHaveLength(21);
    expect(reply.body.errors.slice(0, 20).map((e: { property: string }) => e.property)).toEqual(
      Array.from({ length: 20 }, (_, k) => `email_addresses.${k * 400 + 7}`),
    );
    expect(reply.body.errors[20]).toEqual({
      property: 'email_addresses',
      code: 'invalid',
      message: '5 more values in email_addresses are not valid (the first 20 are reported)',
    });
    // A value of the wrong type is named by its index too, beside the bad addresses and their count;
    // nothing was opted out.
    expect((await service.post('/v2/email_opt_out_jobs', { email_addresses: ['a@example.com', 5] }, v2())).body.errors).toEqual([
      { property: 'email_addresses.1', code: 'wrong_type', message: 'email_addresses.1 must be a string' },
    ]);
    const mixed = await service.post('/v2/email_opt_out_jobs', { email_addresses: [...many.slice(0, -1), null] }, v2());
    expect(mixed.body.errors).toHaveLength(22);
    expect(mixed.body.errors.slice(20)).toEqual([
      { property: 'email_addresses', code: 'invalid', message: '5 more values in email_addresses are not valid (the first 20 are reported)' },
      { property: `email_addresses.${many.length - 1}`, code: 'wrong_type', message: `email_addresses.${many.length - 1} must be a string` },
    ]);
    expect((await service.get('/v2/email_opt_outs?email_address=friend-0@example.com', v2())).body.results).toEqual([]);
  });

  it('emails an address given twice in different case once', async () => {
    const r = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['twice@example.com', 'Twice@Example.COM'] },
      v2(),
    );
    expect(r.status).toBe(201);
    await eventually(async () => expect((await outbox(m, '&recipient=twice@example.com')).map((x: { status: string }) => x.status)).toEqual(['delivered']));
    const stored = await service.app.get<EventStore>(EVENT_STORE).readStream(`share-${r.body.share.id}`);
    expect(stored[0].data).toMatchObject({ emailRecipients: ['twice@example.com'] });
  });

  it("finds a recipient's emails in the outbox whatever the case and spaces of the address asked for", async () => {
    const r = await service.post(
      '/v2/shares',
      { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['Victim@Example.com'] },
      v2(),
    );
    expect(r.status).toBe(201);
    await eventually(async () => expect(await outbox(m, '&recipient=victim@example.com')).toHaveLength(1));
    for (const asked of ['VICTIM@EXAMPLE.COM', 'Victim@Example.com', ' victim@example.com ']) {
      const found = await outbox(m, `&recipient=${encodeURIComponent(asked)}`);
      expect(found.map((x: { to: string; share_id: number }) => [x.to, x.share_id])).toEqual([['Victim@Example.com', r.body.share.id]]);
    }
  });

  it('filters shares, and scopes a customer token to its own', async () => {
    const c = (await service.post('/v2/customers', { account_id: 'sharer', email_address: 'sharer@example.com' }, v2())).body.customer;
    const token = `Bearer ${(await service.post('/v2/tokens/customer', { customer_id: c.id }, v2())).body.token}`;
    // A customer token shares only on a widget on offer (published, active, not archived).
    const offered = await createWidget(service, m, { name: 'On offer', published: true });
    const mine = await service.post(
      '/v2/shares',
      { widget_id: offered.id, reward_email_address: 'sharer@example.com', email_recipients: ['f@example.com'] },
      { auth: token },
    );
    expect(mine.status).toBe(201);
    expect(mine.body.share.customer).toBe(`${service.url}/v2/customers/${c.id}`);
    const listed = await service.get('/v2/shares', { auth: token });
    expect(listed.body.results.map((s: { id: number }) => s.id)).toEqual([mine.body.share.id]);
    expect((await service.get(`/v2/shares/${mine.body.share.id}`, { auth: token })).status).toBe(403);
    expect(
      (
        await service.post(
          '/v2/shares',
          { widget_id: offered.id, reward_email_address: 'x@example.com', email_recipients: ['f@example.com'], customer_id: c.id + 1 },
          { auth: token },
        )
      ).status,
    ).toBe(403);
    const byEmail = await service.get('/v2/shares?email_address=SHARER@example.com', v2());
    expect(byEmail.body.results_count).toBe(1);
    // Address filters compare trimmed and lower-cased, every one (docs/api-decisions.md).
    expect((await service.get('/v2/shares?email_address=%20sharer@example.com%20', v2())).body.results_count).toBe(1);
    const byCustomer = await service.get(`/v2/shares?customer_id=${c.id}`, v2());
    expect(byCustomer.body.results_count).toBe(1);
    const v1 = await service.get(`/v1/customers/${c.id}`, { auth: m.basic });
    expect(v1.body.recent_shares).toEqual([
      expect.objectContaining({
        id: mine.body.share.id,
        message: { id: null, content: null, network: 'email' },
        sharer: expect.objectContaining({ email: 'sharer@example.com' }),
      }),
    ]);
  });

  it('validates share input', async () => {
    for (const body of [
      { widget_id: widget.id, reward_email_address: 'a@example.com' },
      { widget_id: widget.id, reward_email_address: 'a@example.com', email_recipients: [] },
      { widget_id: widget.id, reward_email_address: 'a@example.com', email_recipients: ['nope'] },
      { widget_id: widget.id, reward_email_address: 'a@example.com', email_recipients: 'b@example.com' },
      { widget_id: widget.id, reward_email_address: 'a@example.com', email_recipients: ['b@example.com'], ip_address: 'x' },
      { widget_id: widget.id, reward_email_address: 'a@example.com', email_recipients: ['b@example.com'], send_reminder: 'yes' },
    ]) {
      const r = await service.post('/v2/shares', body, v2());
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    expect(
      (await service.post('/v2/shares', { widget_id: 424242, reward_email_address: 'a@example.com', email_recipients: ['b@example.com'] }, v2())).status,
    ).toBe(404);
  });

  it('records email captures, with an optional referral code that must exist', async () => {
    const made = await service.post(
      '/v2/email_captures',
      { widget_id: widget.id, email_address: 'cap@example.com', newsletter_opt_in: true, ip_address: '198.51.100.1' },
      v2(),
    );
    expect(made.status).toBe(201);
    expect(made.body.email_capture).toEqual({
      id: expect.any(Number),
      widget: `${service.url}/v2/widgets/${widget.id}`,
      referral_link: null,
      email_address: 'cap@example.com',
      ip_address: '198.51.100.1',
      created_at: expect.any(String),
    });
    const link = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: 'adv@example.com' }, v2())).body.referral_link;
    const withCode = await service.post('/v2/email_captures', { widget_id: widget.id, email_address: 'cap2@example.com', referral_code: link.code }, v2());
    expect(withCode.body.email_capture.referral_link).toBe(`${service.url}/v2/referral_links/${link.code}`);
    expect(
      (await service.post('/v2/email_captures', { widget_id: widget.id, email_address: 'cap3@example.com', referral_code: 'nosuch12' }, v2())).status,
    ).toBe(400);
    expect((await service.get(`/v2/email_captures/${made.body.email_capture.id}`, v2())).body.email_capture).toEqual(made.body.email_capture);
    expect((await service.get('/v2/email_captures?email_address=CAP2@example.com', v2())).body.results_count).toBe(1);
    expect((await service.get('/v2/email_captures?email_address=%20cap2@example.com%20', v2())).body.results_count).toBe(1);
    expect((await service.get(`/v2/email_captures?widget_id=${widget.id}`, v2())).body.results_count).toBe(2);
    const stranger = await createMerchant(service);
    expect((await service.get(`/v2/email_captures/${made.body.email_capture.id}`, { auth: stranger.bearer })).status).toBe(404);
  });
});

describe('reminder emails', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'referral-reminders-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  type Case = {
    service: Service;
    clock: ManualClock;
    m: Awaited<ReturnType<typeof createMerchant>>;
    widget: Awaited<ReturnType<typeof createWidget>>;
    auth: { auth: string };
  };
  /** A service on a manual clock from `start`, a merchant and a widget; the service stops after `body`. */
  const withWidget = async (start: string, body: (c: Case) => Promise<void>) => {
    const clock = new ManualClock(new Date(start));
    const service = await Service.start({ clock, env });
    try {
      const m = await createMerchant(service);
      await body({ service, clock, m, widget: await createWidget(service, m), auth: { auth: m.bearer } });
    } finally {
      await service.stop();
    }
  };
  /** The reminder delay passed and the one reminder out: what the merchant's outbox holds. */
  const outboxAfterReminder = async ({ service, clock, m, auth }: Case) => {
    clock.advance(3 * DAY);
    await eventually(async () => expect((await service.get('/v2/reminder_emails', auth)).body.results).toHaveLength(1));
    return (await service.get(`/admin/merchants/${m.id}/outbox?limit=100`, service.admin)).body.results as { to: string; kind: string }[];
  };

  it("reminds only those the share's emails reached: not a recipient who was opted out then and is not any more", async () => {
    await withWidget('2026-07-01T08:00:00.000Z', async (c) => {
      const { service, widget, auth } = c;
      const job = (await service.post('/v2/email_opt_out_jobs', { email_addresses: ['opted@example.com'] }, auth)).body.email_opt_out_job;
      await eventually(async () => expect((await service.get(`/v2/email_opt_out_jobs/${job.id}`, auth)).body.email_opt_out_job.status).toBe('completed'));
      const share = (
        await service.post(
          '/v2/shares',
          { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['dave@example.com', 'opted@example.com'], send_reminder: true },
          auth,
        )
      ).body.share;
      expect(share.skipped_recipients_count).toBe(1);
      expect((await service.delete('/v2/email_opt_outs/opted@example.com', undefined, auth)).status).toBe(200);
      const sent = await outboxAfterReminder(c);
      expect(sent.map((x) => `${x.kind}:${x.to}`).sort()).toEqual(['reminder_email:dave@example.com', 'share:dave@example.com']);
    });
  });

  it("does not remind a recipient who converted through the share's code, however many conversions of that code came before", async () => {
    await withWidget('2026-08-01T08:00:00.000Z', async (c) => {
      const { service, m, widget, auth } = c;
      const share = (
        await service.post(
          '/v2/shares',
          { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['Late@Example.com', 'other@example.com'], send_reminder: true },
          auth,
        )
      ).body.share;
      const code = share.referral_link.split('/').pop();
      // 10,000 earlier conversions of the code, by other friends (appended as the purchase path records them).
      const earlier = Array.from({ length: 10_000 }, (_, i) => ({
        type: 'ConversionAttributed',
        data: {
          conversionId: 7e12 + i,
          merchantId: m.id,
          purchaseId: 7e12 + i,
          widgetId: widget.id,
          referralCode: code,
          couponCode: null,
          channel: 'email',
          source: { type: 'share', shareId: share.id },
          advocateCustomerId: null,
          advocateEmailAddress: 'ann@example.com',
          friendCustomerId: null,
          friendEmailAddress: `friend-${i}@example.org`,
          createdAt: '2026-07-01T00:00:00.000Z',
        },
        metadata: { merchantId: m.id },
      }));
      await service.app.get<EventStore>(EVENT_STORE).append('seeded-earlier-conversions', earlier, 'no_stream');
      expect((await service.post('/v2/purchases', { order_id: 'late-1', referral_code: code, email_address: 'late@example.com' }, auth)).status).toBe(201);
      const sent = await outboxAfterReminder(c);
      expect(sent.filter((x) => x.kind === 'reminder_email').map((x) => x.to)).toEqual(['other@example.com']);
    });
  });

  it('does not remind a recipient who bought through the code as a known customer, with no address on the purchase', async () => {
    await withWidget('2026-08-01T08:00:00.000Z', async (c) => {
      const { service, widget, auth } = c;
      const friend = (await service.post('/v2/customers', { account_id: 'friend-fr', email_address: 'Fr@Example.com' }, auth)).body.customer;
      const share = (
        await service.post(
          '/v2/shares',
          { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['fr@example.com', 'other@example.com'], send_reminder: true },
          auth,
        )
      ).body.share;
      const code = share.referral_link.split('/').pop();
      expect((await service.post('/v2/purchases', { order_id: 'known-1', referral_code: code, customer_id: friend.id }, auth)).status).toBe(201);
      const sent = await outboxAfterReminder(c);
      expect(sent.filter((x) => x.kind === 'reminder_email').map((x) => x.to)).toEqual(['other@example.com']);
    });
  });

  it('sends no reminder for a share whose code was blacklisted: its new code would bring the offer back', async () => {
    await withWidget('2026-09-01T08:00:00.000Z', async ({ service, clock, m, widget, auth }) => {
      const share = (
        await service.post(
          '/v2/shares',
          { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['bl@example.com'], send_reminder: true },
          auth,
        )
      ).body.share;
      const code = share.referral_link.split('/').pop();
      expect((await service.put(`/admin/merchants/${m.id}/referral_links/${code}/blacklist`, undefined, service.admin)).status).toBe(200);
      clock.advance(3 * DAY);
      const store = service.app.get<EventStore>(EVENT_STORE);
      await eventually(async () =>
        expect((await store.readStream(`share-${share.id}`)).find((e) => e.type === 'ReminderEmailCancelled')?.data).toMatchObject({
          reason: 'share_code_blacklisted',
        }),
      );
      expect((await service.get('/v2/reminder_emails', auth)).body.results).toEqual([]);
      const sent = (await service.get(`/admin/merchants/${m.id}/outbox?limit=100`, service.admin)).body.results as { kind: string }[];
      expect(sent.map((x) => x.kind)).toEqual(['share']);
      // The blacklisted code itself still leads to the destination alone.
      expect((await service.get(`/l/${code}`)).headers.get('location')).toBe('https://shop.example/welcome');
    });
  });

  it('fires once after the delay, to unconverted recipients, and survives a restart in between', async () => {
    const clock = new ManualClock(new Date('2026-06-01T08:00:00.000Z'));
    let service = await Service.start({ clock, env, dataDir });
    const m = await createMerchant(service);
    const widget = await createWidget(service, m);
    // The share's link, its count against the day's limits and the share are one commit (a crash never leaves a code whose share does not exist).
    let watch = recordCommits(service.app.get<EventStore>(EVENT_STORE));
    const share = (
      await service.post(
        '/v2/shares',
        { widget_id: widget.id, reward_email_address: 'ann@example.com', email_recipients: ['r1@example.com', 'r2@example.com'], send_reminder: true },
        { auth: m.bearer },
      )
    ).body.share;
    watch.restore();
    clock.advance(3 * DAY - 60_000);
    await new Promise((r) => setTimeout(r, 100));
    const early = (await service.get('/v2/reminder_emails', { auth: m.bearer })).body.results;
    await service.stop(true);
    expect(watch.commits.filter((types) => types.includes('ShareCreated'))).toEqual([
      ['ReferralLinkCreated', 'ShareRecipientsReserved', 'ShareCreated', 'ReminderEmailScheduled'],
    ]);
    expect(early).toEqual([]);

    service = await Service.start({ clock, env, dataDir });
    try {
      watch = recordCommits(service.app.get<EventStore>(EVENT_STORE));
      clock.advance(60_000);
      const reminder = await eventually(async () => {
        const list = (await service.get('/v2/reminder_emails', { auth: m.bearer })).body.results;
        expect(list).toHaveLength(1);
        return list[0];
      });
      watch.restore();
      // The reminder's link and the reminder are one commit too.
      expect(watch.commits.filter((types) => types.includes('ReminderEmailSent'))).toEqual([['ReferralLinkCreated', 'ReminderEmailSent']]);
      expect(reminder).toMatchObject({
        share: `${service.url}/v2/shares/${share.id}`,
        widget: `${service.url}/v2/widgets/${widget.id}`,
        advocate_email_address: 'ann@example.com',
        email_recipients_count: 2,
        customer: null,
      });
      const code = reminder.referral_link.split('/').pop();
      expect(code).not.toBe(share.referral_link.split('/').pop());
      expect((await service.get(`/v2/referral_links/${code}`, { auth: m.bearer })).body.referral_link).toMatchObject({
        type: 'reminder_email',
        origin: `${service.url}/v2/reminder_emails/${reminder.id}`,
      });
      expect((await service.get(`/v2/reminder_emails/${reminder.id}`, { auth: m.bearer })).body.reminder_email).toEqual(reminder);
      await eventually(async () => {
        const sent = (await service.get(`/admin/merchants/${m.id}/outbox?limit=100`, service.admin)).body.results.filter(
          (x: { kind: string }) => x.kind === 'reminder_email',
        );
        expect(sent.map((x: { to: string; status: string }) => `${x.to}:${x.status}`).sort()).toEqual(['r1@example.com:delivered', 'r2@example.com:delivered']);
      });
      // More ticks and another restart: still one reminder.
      clock.advance(DAY);
      await new Promise((r) => setTimeout(r, 100));
      await service.stop(true);
      service = await Service.start({ clock, env, dataDir });
      await new Promise((r) => setTimeout(r, 100));
      expect((await service.get('/v2/reminder_emails', { auth: m.bearer })).body.results_count).toBe(1);
    } finally {
      await service.stop(true);
    }
  });
});
