/** The share-instructions callback decides whether and how a share's emails go out. */
import { createHmac } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { Service, TestMerchant, createMerchant, createWidget, eventually } from '../support/service.js';

describe('share instructions callback', () => {
  let service: Service;
  let m: TestMerchant;
  let widgetId: number;
  let receiver: Server;
  const received: { signature: string | undefined; body: string }[] = [];
  let answer: () => { status: number; body: string } = () => ({ status: 200, body: '{"action":"allow"}' });

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ signature: req.headers['x-service-signature'] as string | undefined, body });
        const reply = answer();
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    service = await Service.start({
      env: {
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_RETRY_INTERVAL_MS: '100',
        WEBHOOK_RETRY_WINDOW_MS: '200',
        SCHEDULER_TICK_MS: '20',
        REMINDER_DELAY_MS: '300',
      },
    });
    m = await createMerchant(service);
    widgetId = (await createWidget(service, m)).id;
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/instructions`;
    await service.put(`/admin/merchants/${m.id}/client_api`, { share_instructions_url: url, reward_validation_url: null }, service.admin);
  });
  afterAll(async () => {
    await service.stop();
    await new Promise((r) => receiver.close(r));
  });

  async function share(recipient: string, sendReminder = false) {
    const r = await service.post(
      '/v2/shares',
      { widget_id: widgetId, reward_email_address: 'adv@example.com', email_recipients: [recipient], message: 'original', send_reminder: sendReminder },
      { auth: m.bearer },
    );
    expect(r.status).toBe(201);
    return r.body.share;
  }
  const outboxFor = async (to: string) =>
    (await service.get(`/admin/merchants/${m.id}/outbox?recipient=${encodeURIComponent(to)}`, service.admin)).body.results;

  it('asks before sending, signed, and sends on allow', async () => {
    answer = () => ({ status: 200, body: '{"action":"allow"}' });
    const made = await share('allowed@example.com');
    await eventually(async () => expect((await outboxFor('allowed@example.com')).map((x: { status: string }) => x.status)).toEqual(['delivered']));
    const request = received.find((x) => JSON.parse(x.body).share?.share_id === made.id)!;
    expect(request.signature).toBe(createHmac('sha1', m.secretKey).update(request.body).digest('base64'));
    expect(JSON.parse(request.body).type).toBe('share_instructions');
  });

  it('sends the replacement message when told to', async () => {
    answer = () => ({ status: 200, body: '{"action":"replace_message","message":"Edited by the merchant"}' });
    const made = await share('replaced@example.com');
    await eventually(async () => expect(await outboxFor('replaced@example.com')).toHaveLength(1));
    expect((await outboxFor('replaced@example.com'))[0].text).toContain('Edited by the merchant');
    expect((await service.get(`/v2/shares/${made.id}`, { auth: m.bearer })).body.share.message).toBe('Edited by the merchant');
    // v1's ShareMessage.content is "text entered by the advocate" (spec §2.2): the advocate's, not the replacement.
    const customer = (await service.post('/v2/customers', { account_id: 'replaced-advocate', email_address: 'adv@example.com' }, { auth: m.bearer })).body
      .customer;
    const withCustomer = await service.post(
      '/v2/shares',
      {
        widget_id: widgetId,
        customer_id: String(customer.id),
        reward_email_address: 'adv@example.com',
        email_recipients: ['replaced-2@example.com'],
        message: 'original',
      },
      { auth: m.bearer },
    );
    expect(withCustomer.status).toBe(201);
    await eventually(async () => expect(await outboxFor('replaced-2@example.com')).toHaveLength(1));
    const v1 = (await service.get(`/v1/customers/${customer.id}`, { auth: m.basic })).body;
    expect(v1.recent_shares.map((x: { message: { content: string } }) => x.message.content)).toEqual(['original']);
  });

  it('sends nothing when blocked, or when the callback never answers 200 within the window', async () => {
    const store = service.app.get<EventStore>(EVENT_STORE);
    answer = () => ({ status: 200, body: '{"action":"block","message":"spam"}' });
    const blocked = await share('blocked@example.com');
    await eventually(async () => {
      const events = await store.readStream(`share-${blocked.id}`);
      expect(events.map((e) => e.type)).toContain('ShareEmailsBlocked');
    });
    answer = () => ({ status: 503, body: '' });
    const unanswered = await share('unanswered@example.com');
    await eventually(async () => {
      const events = await store.readStream(`share-${unanswered.id}`);
      // 0, 100 and 200 ms: the last at the window's end, sent a moment after it.
      expect(events.filter((e) => e.type === 'ShareInstructionsAttempted')).toHaveLength(3);
      expect(events.find((e) => e.type === 'ShareEmailsBlocked')?.data).toMatchObject({ reason: 'share_instructions_unavailable' });
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(await outboxFor('blocked@example.com')).toEqual([]);
    expect(await outboxFor('unanswered@example.com')).toEqual([]);
    // Decided: every recipient skipped (null would read as still being asked).
    expect(blocked.skipped_recipients_count).toBeNull();
    for (const made of [blocked, unanswered]) {
      await eventually(async () => expect((await service.get(`/v2/shares/${made.id}`, { auth: m.bearer })).body.share.skipped_recipients_count).toBe(1));
    }
  });

  it('asks every retry the same question, whatever the merchant changed in between', async () => {
    let calls = 0;
    answer = () => (++calls <= 1 ? { status: 500, body: '' } : { status: 200, body: '{"action":"allow"}' });
    const made = await share('same-question@example.com');
    const asked = () => received.filter((x) => JSON.parse(x.body).share?.share_id === made.id);
    await eventually(async () => expect(asked().length).toBeGreaterThanOrEqual(1));
    // The recipients become visible to the merchant after the first question went out without them.
    await service.patch(`/admin/merchants/${m.id}`, { can_see_recipients: true }, service.admin);
    try {
      await eventually(async () => expect(await outboxFor('same-question@example.com')).toHaveLength(1));
      const bodies = asked().map((x) => x.body);
      expect(bodies.length).toBeGreaterThanOrEqual(2);
      expect(new Set(bodies).size).toBe(1);
      expect(new Set(asked().map((x) => x.signature)).size).toBe(1);
      expect(JSON.parse(bodies[0]).share.email_recipients).toBeUndefined();
    } finally {
      await service.patch(`/admin/merchants/${m.id}`, { can_see_recipients: false }, service.admin);
    }
  });

  it('follows the instructions with the reminder too: none after blocked emails, the replacement message in it', async () => {
    const store = service.app.get<EventStore>(EVENT_STORE);
    answer = () => ({ status: 200, body: '{"action":"block","message":"not allowed"}' });
    const blocked = await share('blocked-reminder@example.com', true);
    // The callback is asked in the background: the next answer only once this one was taken.
    await eventually(async () => expect((await store.readStream(`share-${blocked.id}`)).map((e) => e.type)).toContain('ShareEmailsBlocked'));
    answer = () => ({ status: 200, body: '{"action":"replace_message","message":"Edited for every email"}' });
    const replaced = await share('replaced-reminder@example.com', true);
    await eventually(async () => {
      expect((await store.readStream(`share-${blocked.id}`)).find((e) => e.type === 'ReminderEmailCancelled')?.data).toMatchObject({
        reason: 'share_emails_blocked',
      });
      expect((await store.readStream(`share-${replaced.id}`)).map((e) => e.type)).toContain('ReminderEmailSent');
    });
    expect(await outboxFor('blocked-reminder@example.com')).toEqual([]);
    const texts = (await outboxFor('replaced-reminder@example.com')).map((x: { text: string }) => x.text);
    expect(texts).toHaveLength(2);
    for (const text of texts) {
      expect(text).toContain('Edited for every email');
      expect(text).not.toContain('original');
    }
  });
});
