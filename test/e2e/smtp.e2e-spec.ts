/** With SMTP_URL set, share emails leave through a real SMTP conversation (nodemailer). */
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { Mailer } from '../../src/email/index.js';
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
      const share = await service.post(
        '/v2/shares',
        { widget_id: w.id, reward_email_address: 'ann@example.com', email_recipients: ['bob@example.com'], message: 'hello there' },
        { auth: m.bearer },
      );
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
    const service = await Service.start({
      env: { SMTP_URL: `smtp://127.0.0.1:${downPort}?ignoreTLS=true`, EMAIL_RETRY_INTERVAL_MS: '300', SCHEDULER_TICK_MS: '100' },
    });
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
      expect(
        (
          await service.post(
            '/v2/shares',
            { widget_id: w.id, reward_email_address: 'ann@example.com', email_recipients: ['carl@example.com'] },
            { auth: m.bearer },
          )
        ).status,
      ).toBe(201);
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

  it('ends a message the server refuses for good (5xx) as failed, tried once, and keeps trying one it defers (4xx) until it is taken', async () => {
    const rcpts: string[] = [];
    const delivered: string[] = [];
    let deferring = true;
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onRcptTo(address, session, callback) {
        rcpts.push(address.address);
        const refuse = (responseCode: number, text: string) => callback(Object.assign(new Error(text), { responseCode }));
        if (address.address === 'bounce@example.com') return refuse(550, `5.1.1 <${address.address}>: Recipient address rejected: User unknown`);
        if (deferring) return refuse(451, '4.3.0 Try again later');
        callback();
      },
      onData(stream, session, callback) {
        stream.on('data', () => undefined);
        stream.on('end', () => {
          delivered.push(...session.envelope.rcptTo.map((r) => r.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const refusingPort = (refusing.server.address() as AddressInfo).port;
    const service = await Service.start({
      env: { SMTP_URL: `smtp://127.0.0.1:${refusingPort}?ignoreTLS=true`, EMAIL_RETRY_INTERVAL_MS: '100', SCHEDULER_TICK_MS: '50' },
    });
    type Message = {
      id: string;
      to: string;
      status: string;
      delivered_at: string | null;
      failure: { reply_code: number; reply: string; failed_at: string } | null;
    };
    try {
      const m = await createMerchant(service);
      const w = await createWidget(service, m);
      const outbox = async (query = '') =>
        ((await service.get(`/admin/merchants/${m.id}/outbox?limit=100${query}`, service.admin)).body.results as Message[]).sort((a, b) =>
          a.to.localeCompare(b.to),
        );
      const share = await service.post(
        '/v2/shares',
        { widget_id: w.id, reward_email_address: 'ann@example.com', email_recipients: ['bounce@example.com', 'later@example.com'] },
        { auth: m.bearer },
      );
      expect(share.status).toBe(201);

      const failed = await eventually(async () => {
        const [bounce] = await outbox('&status=failed');
        expect(bounce).toMatchObject({
          to: 'bounce@example.com',
          status: 'failed',
          delivered_at: null,
          failure: { reply_code: 550, failed_at: expect.any(String) },
        });
        return bounce;
      });
      expect(failed.failure!.reply).toBe('550 5.1.1 <bounce@example.com>: Recipient address rejected: User unknown');
      // The deferred one is tried pass after pass (each pass walks the whole queue); the refused one never again.
      await eventually(async () => expect(rcpts.filter((to) => to === 'later@example.com').length).toBeGreaterThanOrEqual(3));
      expect((await outbox()).map((x) => [x.to, x.status])).toEqual([
        ['bounce@example.com', 'failed'],
        ['later@example.com', 'queued'],
      ]);
      deferring = false;
      await eventually(async () => expect(delivered).toEqual(['later@example.com']));
      await eventually(async () =>
        expect((await outbox()).map((x) => [x.to, x.status, x.failure])).toEqual([
          ['bounce@example.com', 'failed', failed.failure],
          ['later@example.com', 'delivered', null],
        ]),
      );
      expect(rcpts.filter((to) => to === 'bounce@example.com')).toHaveLength(1);

      // The audit trail records the refusal in the message's own stream; the address, and the
      // reply that quotes it, are hidden from a merchant that may not see recipients.
      const trail = async () =>
        (await service.get(`/v2/audit/events?stream=email-delivery-${failed.id}`, { auth: m.bearer })).body.results as {
          type: string;
          data: Record<string, unknown>;
        }[];
      expect(await trail()).toEqual([
        expect.objectContaining({
          type: 'EmailFailed',
          data: { messageId: failed.id, merchantId: m.id, to: '[redacted]', replyCode: 550, reply: '[redacted]', failedAt: failed.failure!.failed_at },
        }),
      ]);
      expect((await service.patch(`/admin/merchants/${m.id}`, { can_see_recipients: true }, service.admin)).status).toBe(200);
      expect((await trail())[0].data).toMatchObject({ to: 'bounce@example.com', reply: failed.failure!.reply });
    } finally {
      await service.stop();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });

  it('keeps messages queued for SMTP queued through a restart without SMTP_URL, says how many wait, and sends them once SMTP_URL is back', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const downPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const dataDir = mkdtempSync(join(tmpdir(), 'referral-smtp-restart-'));
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    const queuedForSmtp = ['ann-1@example.com', 'ann-2@example.com', 'dan-1@example.com', 'dan-2@example.com'];
    const outbox = async (service: Service, merchantId: number) =>
      (
        (await service.get(`/admin/merchants/${merchantId}/outbox?limit=100`, service.admin)).body.results as {
          to: string;
          status: string;
          delivered_via: string | null;
        }[]
      )
        .map((x) => [x.to, x.status, x.delivered_via])
        .sort();
    try {
      // SMTP_URL set, the server down: the four messages of two shares wait in the queue.
      const down = await Service.start({ dataDir, env: { SMTP_URL: `smtp://127.0.0.1:${downPort}?ignoreTLS=true`, EMAIL_RETRY_INTERVAL_MS: '600000' } });
      const m = await createMerchant(down);
      try {
        const w = await createWidget(down, m);
        for (const advocate of ['ann', 'dan']) {
          const share = await down.post(
            '/v2/shares',
            { widget_id: w.id, reward_email_address: `${advocate}@example.com`, email_recipients: [`${advocate}-1@example.com`, `${advocate}-2@example.com`] },
            { auth: m.bearer },
          );
          expect(share.status).toBe(201);
        }
        await eventually(async () => expect(await outbox(down, m.id)).toEqual(queuedForSmtp.map((to) => [to, 'queued', null])));
        await down.app.get(Mailer).kick();
      } finally {
        await down.stop(true);
      }

      // Restarted without SMTP_URL: a pass over the queue leaves them queued (the outbox sender
      // would mark them delivered, sending nothing), and the start says how many wait.
      const without = await Service.start({ dataDir });
      try {
        await eventually(async () =>
          expect(warnings).toHaveBeenCalledWith(expect.stringContaining('4 queued email message(s) wait for SMTP'), { waiting_for_smtp: 4 }),
        );
        await without.app.get(Mailer).kick();
        expect(await outbox(without, m.id)).toEqual(queuedForSmtp.map((to) => [to, 'queued', null]));
        // A message queued without SMTP_URL is kept in the outbox as before.
        const w = (await without.get('/v2/widgets', { auth: m.bearer })).body.results[0];
        expect(
          (
            await without.post(
              '/v2/shares',
              { widget_id: w.id, reward_email_address: 'eve@example.com', email_recipients: ['eve-1@example.com'] },
              { auth: m.bearer },
            )
          ).status,
        ).toBe(201);
        await eventually(async () => expect(await outbox(without, m.id)).toContainEqual(['eve-1@example.com', 'delivered', 'outbox']));
        await without.app.get(Mailer).kick();
        expect((await outbox(without, m.id)).filter(([, status]) => status === 'queued')).toHaveLength(4);
      } finally {
        await without.stop(true);
      }

      // SMTP_URL back, the server up: the four go out, and only they.
      const sent: string[] = [];
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        onData(stream, session, callback) {
          stream.on('data', () => undefined);
          stream.on('end', () => {
            sent.push(...session.envelope.rcptTo.map((r) => r.address));
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(downPort, '127.0.0.1', resolve));
      const up = await Service.start({ dataDir, env: { SMTP_URL: `smtp://127.0.0.1:${downPort}?ignoreTLS=true` } });
      try {
        await eventually(async () => expect([...sent].sort()).toEqual(queuedForSmtp));
        await eventually(async () =>
          expect(await outbox(up, m.id)).toEqual(
            [['eve-1@example.com', 'delivered', 'outbox'], ...queuedForSmtp.map((to) => [to, 'delivered', 'smtp'])].sort(),
          ),
        );
      } finally {
        await up.stop();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    } finally {
      warnings.mockRestore();
      rmSync(dataDir, { recursive: true, force: true });
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
      await service.post(
        '/v2/shares',
        { widget_id: w.id, reward_email_address: 'ann@example.com', email_recipients: ['live@example.com'] },
        { auth: m.bearer },
      );
      await eventually(async () => expect(received.length).toBe(before + 1));
      expect(received.flatMap((r) => r.to)).not.toContain('victim@example.org');
      expect(received.flatMap((r) => r.to).filter((to) => to !== 'bob@example.com' && to !== 'live@example.com')).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
