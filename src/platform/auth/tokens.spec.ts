import { issueToken, VerifiedTokens } from './tokens.js';

describe('VerifiedTokens', () => {
  const merchant = (secret_key: string) => ({ id: 7, secret_key });
  const token = issueToken({ kind: 'merchant', merchantId: 7, generation: 0 }, 'sk_first');

  it('accepts a token signed with the merchant secret key, again and again', async () => {
    const verified = new VerifiedTokens<{ id: number; secret_key: string }>();
    const lookup = async () => merchant('sk_first');
    for (let i = 0; i < 3; i += 1) {
      expect((await verified.verify(token, lookup))?.parsed.claims).toEqual({ kind: 'merchant', merchantId: 7, generation: 0 });
    }
  });

  it('refuses a forged signature, a token of another key and one of an unknown merchant', async () => {
    const verified = new VerifiedTokens<{ id: number; secret_key: string }>();
    const lookup = async () => merchant('sk_first');
    await verified.verify(token, lookup);
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'AB' : 'AA'}`;
    expect(await verified.verify(forged, lookup)).toBeUndefined();
    expect(await verified.verify(issueToken({ kind: 'merchant', merchantId: 7, generation: 0 }, 'sk_other'), lookup)).toBeUndefined();
    expect(await verified.verify(token, async () => null)).toBeUndefined();
    expect(await verified.verify('mt_not-a-token', lookup)).toBeUndefined();
  });

  it('stops accepting a checked token once the merchant has another secret key', async () => {
    const verified = new VerifiedTokens<{ id: number; secret_key: string }>();
    expect(await verified.verify(token, async () => merchant('sk_first'))).toBeDefined();
    expect(await verified.verify(token, async () => merchant('sk_rotated'))).toBeUndefined();
  });

  it('refuses a token signed in another key context (the sandbox of another process), or in none', async () => {
    const lookup = async () => merchant('sk_first');
    const before = issueToken({ kind: 'merchant', merchantId: 7, generation: 0 }, 'sk_first', 'sandbox/one');
    expect(await new VerifiedTokens<{ id: number; secret_key: string }>(undefined, 'sandbox/one').verify(before, lookup)).toBeDefined();
    expect(await new VerifiedTokens<{ id: number; secret_key: string }>(undefined, 'sandbox/two').verify(before, lookup)).toBeUndefined();
    expect(await new VerifiedTokens<{ id: number; secret_key: string }>().verify(before, lookup)).toBeUndefined();
    expect(await new VerifiedTokens<{ id: number; secret_key: string }>(undefined, 'sandbox/one').verify(token, lookup)).toBeUndefined();
  });

  it('keeps verifying once its capacity is reached', async () => {
    const verified = new VerifiedTokens<{ id: number; secret_key: string }>(1);
    const lookup = async () => merchant('sk_first');
    const second = issueToken({ kind: 'merchant', merchantId: 7, generation: 0 }, 'sk_first');
    for (const t of [token, second, token, second]) expect(await verified.verify(t, lookup)).toBeDefined();
  });
});
