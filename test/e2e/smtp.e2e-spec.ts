/** With SMTP_URL set, share emails leave through a real SMTP conversation (nodemailer). */
import { AddressInfo } from 'node:net';
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
        expect(outbox.map((x: { status: string }) => x.status)).toEqual(['delivered']);
      });
    } finally {
      await service.stop();
    }
  });
});
