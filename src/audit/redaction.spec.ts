import { hideRecipients, isSecretName, REDACTED, redact } from './redaction.js';

describe('audit redaction', () => {
  it('masks properties named like credentials, at any depth, whatever their case or separator', () => {
    const data = {
      merchantId: 1,
      name: 'Shop',
      accessKey: 'ak_public',
      secretKey: 'sk_abc',
      nested: { secret_key: 'x', webhookSecret: 'y', list: [{ token: 't', password: 'p' }], apiKey: 'k', Authorization: 'Bearer z' },
      tokenGeneration: 3,
    };
    expect(redact(data)).toEqual({
      merchantId: 1,
      name: 'Shop',
      accessKey: 'ak_public',
      secretKey: REDACTED,
      nested: { secret_key: REDACTED, webhookSecret: REDACTED, list: [{ token: REDACTED, password: REDACTED }], apiKey: REDACTED, Authorization: REDACTED },
      tokenGeneration: 3,
    });
    expect(data.secretKey).toBe('sk_abc');
  });

  it("masks the service's own credential formats under any name", () => {
    const sk = `sk_${'a'.repeat(40)}`;
    const mt = `mt_${'b'.repeat(20)}.${'c'.repeat(43)}`;
    expect(redact({ note: sk, other: [mt], plain: 'sk_short' })).toEqual({ note: REDACTED, other: [REDACTED], plain: 'sk_short' });
  });

  it('keeps ordinary names', () => {
    for (const name of ['tokenGeneration', 'customerId', 'secretary', 'token_count', 'emailAddress']) expect(isSecretName(name)).toBe(false);
    for (const name of ['secretKey', 'secret_key', 'SECRET', 'token', 'accessToken', 'client-secret']) expect(isSecretName(name)).toBe(true);
  });

  it('masks every value of a headers object and keeps the names', () => {
    expect(redact({ headers: { 'X-Signature': 'v1', 'X-Vendor': 'acme' }, replaceSignature: true })).toEqual({
      headers: { 'X-Signature': REDACTED, 'X-Vendor': REDACTED },
      replaceSignature: true,
    });
    // The read model's name for them (the rebuild's dump): every value too, not only secret-looking names.
    expect(redact({ custom_headers: { Authorization: 'Bearer x', 'X-Foo': 'credential' } })).toEqual({
      custom_headers: { Authorization: REDACTED, 'X-Foo': REDACTED },
    });
  });

  it("hides a share's recipients, one placeholder each, and leaves other events and fields alone", () => {
    const messages = [{ messageId: 'm1', to: 'a@example.org', subject: 's', text: 't' }];
    expect(hideRecipients('ShareCreated', { shareId: 1, emailRecipients: ['a@example.org', 'b@example.org'], rewardEmailAddress: 'ada@example.com' })).toEqual({
      shareId: 1,
      emailRecipients: [REDACTED, REDACTED],
      rewardEmailAddress: 'ada@example.com',
    });
    expect(hideRecipients('ShareEmailsSent', { messages, skippedOptedOut: ['c@example.org'] })).toEqual({
      messages: [{ messageId: 'm1', to: REDACTED, subject: 's', text: 't' }],
      skippedOptedOut: [REDACTED],
    });
    expect(messages[0].to).toBe('a@example.org');
    expect(hideRecipients('ReminderEmailSent', { messages })).toEqual({ messages: [{ ...messages[0], to: REDACTED }] });
    expect(hideRecipients('EmailDelivered', { messageId: 'm1', to: 'a@example.org' })).toEqual({ messageId: 'm1', to: REDACTED });
    expect(hideRecipients('EmailSuppressed', { messageId: 'm1', to: 'a@example.org' })).toEqual({ messageId: 'm1', to: REDACTED });
    // The server's reply names the refused address its own way: replaced whole, its code kept.
    expect(
      hideRecipients('EmailFailed', { messageId: 'm1', to: 'a@example.org', replyCode: 550, reply: '550 5.1.1 <A@EXAMPLE.ORG>: Recipient address rejected' }),
    ).toEqual({
      messageId: 'm1',
      to: REDACTED,
      replyCode: 550,
      reply: REDACTED,
    });
    expect(hideRecipients('CustomerRegistered', { emailAddress: 'a@example.org' })).toEqual({ emailAddress: 'a@example.org' });
    // A share.created webhook made while the merchant could see them carries them in its payload.
    const payload = { id: 'e1', type: 'share.created', data: { share_id: 1, email_recipients: ['a@example.org'] } };
    expect(hideRecipients('WebhookDeliveryScheduled', { deliveryId: 9, payload })).toEqual({
      deliveryId: 9,
      payload: { ...payload, data: { share_id: 1, email_recipients: [REDACTED] } },
    });
    expect(payload.data.email_recipients).toEqual(['a@example.org']);
    expect(
      hideRecipients('WebhookDeliveryScheduled', { deliveryId: 9, payload: { id: 'e2', type: 'conversion.created', data: { conversion_id: 3 } } }),
    ).toEqual({
      deliveryId: 9,
      payload: { id: 'e2', type: 'conversion.created', data: { conversion_id: 3 } },
    });
  });
});
