/** With SMTP_URL set, share emails leave through a real SMTP conversation (nodemailer). */
import { AddressInfo, createServer } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Service, createMerchant, createWidget, eventually } from '../support/service.js';

describe('SMTP email adapter', () => {
  const received: { to: string[]; data: string }[] = [];
  let smtp: SMTPServer;
  let port: number;
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('delivers share emails to the SMTP server and marks them delivered', async () => {
    const service = await Service.start({ env: { SMTP_URL: `smtp://127.0.0.1:${port}?ignoreTLS=true`, EMAIL_FROM: 'offers@shop.example' } });
    try {
      const m = await createMerchant(service);
      const w = await createWidget(service, m);
      const share = await service.post('/v2/shares', { widget_id: w.id, reward_email_address: 'ann@example.com', email_recipients: ['bob@example.com'], message: 'hello there' }, { auth: m.bearer });
      expect(share.status).toBe(201);
      await eventually(async () => expect(received).toHaveLength(1));
      expect(received[0].to).toEqual(['bob@example.com']);
      expect(received[0].data).toContain('From: offers@shop.example');
      expect(received[0].data).toContain('hello there');
      await eventually(async () => {
        const outbox = (await service.get(`/admin/merchants/${m.id}/outbox`, service.admin)).body.results;
        expect(outbox.map((x: { status: string; delivered_via: string }) => [x.status, x.delivered_via])).toEqual([['delivered', 'smtp']]);
      });
    } finally {
      await service.stop();
    }
  });

  it('tries a message whose delivery failed again by itself once the SMTP server answers (no other email needed)', async () => {
    // A port nobody listens on yet: the first delivery is refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const downPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const service = await Service.start({ env: { SMTP_URL: `smtp://127.0.0.1:${downPort}?ignoreTLS=true`, EMAIL_RETRY_INTERVAL_MS: '300', SCHEDULER_TICK_MS: '100' } });
    const late: string[][] = [];
    const lateServer = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        stream.on('data', () => undefined);
        stream.on('end', () => {
          late.push(session.envelope.rcptTo.map((r) => r.address));
          callback();
        });
      },
    });
    try {
      const m = await createMerchant(service);
      const w = await createWidget(service, m);
      const outbox = async () => (await service.get(`/admin/merchants/${m.id}/outbox`, service.admin)).body.results.map((x: { status: string }) => x.status);
      expect((await service.post('/v2/shares', { widget_id: w.id, reward_email_address: 'ann@example.com', email_recipients: ['carl@example.com'] }, { auth: m.bearer })).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await outbox()).toEqual(['queued']);
      await new Promise<void>((resolve) => lateServer.listen(downPort, '127.0.0.1', resolve));
      await eventually(async () => expect(late).toEqual([['carl@example.com']]));
      await eventually(async () => expect(await outbox()).toEqual(['delivered']));
    } finally {
      await service.stop();
      await new Promise<void>((resolve) => lateServer.close(() => resolve()));
    }
  });

  it('sends nothing from the sandbox through the live SMTP server, and links its emails to the sandbox', async () => {
    const service = await Service.start({
      sandbox: true,
      env: { SMTP_URL: `smtp://127.0.0.1:${port}?ignoreTLS=true`, PUBLIC_LINK_BASE: 'https://go.shop.example' },
    });
    try {
      const info = (await service.get('/admin/sandbox', service.admin)).body.sandbox;
      const token = (await service.post('/sandbox/v2/tokens/merchant', { access_key: info.access_key, secret_key: info.secret_key })).body.token;
      const auth = `Bearer ${token}`;
      const widget = (await service.get('/sandbox/v2/widgets?limit=1', { auth })).body.results[0];
      const share = await service.post(
        '/sandbox/v2/shares',
        { widget_id: widget.id, reward_email_address: 'someone@example.com', email_recipients: ['victim@example.org'], message: 'buy now' },
        { auth },
      );
      expect(share.status).toBe(201);
      const referralLink = (await service.get(share.body.share.referral_link.slice(service.url.length), { auth })).body.referral_link;
      const link = `${service.url}/sandbox/l/${referralLink.code}`;
      expect(referralLink.trackable_link).toBe(link);
      // The sandbox's own outbox took the message (its delivery is recorded), and its text links to the sandbox.
      const sent = await eventually(async () => {
        const events = (await service.get('/sandbox/v2/audit/events?type=ShareEmailsSent,EmailDelivered&limit=100', { auth })).body.results;
        const decided = events.find((e: { type: string; data: { shareId: number } }) => e.type === 'ShareEmailsSent' && e.data.shareId === share.body.share.id);
        expect(decided).toBeDefined();
        const messageId = decided.data.messages[0].messageId;
        expect(events.some((e: { type: string; data: { messageId?: string } }) => e.type === 'EmailDelivered' && e.data.messageId === messageId)).toBe(true);
        return decided.data.messages[0];
      });
      // Emails have no request to take an origin from: without PUBLIC_BASE_URL they name localhost.
      expect(sent.text).toContain(`/sandbox/l/${referralLink.code}`);
      expect(sent.text).not.toContain('go.shop.example');
      expect((await service.get(`/sandbox/l/${referralLink.code}`)).status).toBe(302);
      const before = received.length;
      // The live service still sends through SMTP, so the server was reachable all along.
      const m = await createMerchant(service);
      const w = await createWidget(service, m);
      await service.post('/v2/shares', { widget_id: w.id, reward_email_address: 'ann@example.com', email_recipients: ['live@example.com'] }, { auth: m.bearer });
      await eventually(async () => expect(received.length).toBe(before + 1));
      expect(received.flatMap((r) => r.to)).not.toContain('victim@example.org');
      expect(received.flatMap((r) => r.to).filter((to) => to !== 'bob@example.com' && to !== 'live@example.com')).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
