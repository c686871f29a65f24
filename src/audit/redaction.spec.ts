import { isSecretName, REDACTED, redact } from './redaction.js';

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

  it('masks the service\'s own credential formats under any name', () => {
    const sk = `sk_${'a'.repeat(40)}`;
    const mt = `mt_${'b'.repeat(20)}.${'c'.repeat(43)}`;
    expect(redact({ note: sk, other: [mt], plain: 'sk_short' })).toEqual({ note: REDACTED, other: [REDACTED], plain: 'sk_short' });
  });

  it('keeps ordinary names', () => {
    for (const name of ['tokenGeneration', 'customerId', 'secretary', 'token_count', 'emailAddress']) expect(isSecretName(name)).toBe(false);
    for (const name of ['secretKey', 'secret_key', 'SECRET', 'token', 'accessToken', 'client-secret']) expect(isSecretName(name)).toBe(true);
  });
});
