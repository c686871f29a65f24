import { SignJWT, UnsecuredJWT } from 'jose';
import { BadRequestError, UnauthorizedError } from '../../platform/errors.js';
import { NOT_VERIFIED, orderClaims, verifyPurchaseToken } from './purchase-token.js';

const SECRET = 'sk_merchant_secret_for_the_spec_0001';
const now = new Date('2026-11-29T10:00:00.000Z');
const seconds = now.getTime() / 1000;

function sign(claims: Record<string, unknown>, options: { key?: string; alg?: string } = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256' }).sign(new TextEncoder().encode(options.key ?? SECRET));
}

async function refusal(token: string): Promise<{ type: string; errors: unknown[] }> {
  try {
    await verifyPurchaseToken(token, SECRET, now);
  } catch (error) {
    return { type: (error as Error).constructor.name, errors: (error as BadRequestError).errors };
  }
  throw new Error('the token was taken');
}

describe('purchase tokens', () => {
  it("takes an HS256 token signed with the merchant's secret key, and sets its registered claims aside", async () => {
    const token = await sign({ order_id: 'ORD-1', payment_amount: 20, exp: seconds + 600, iat: seconds, jti: 'j1' });
    const payload = await verifyPurchaseToken(token, SECRET, now);
    expect(orderClaims(payload)).toEqual({ order_id: 'ORD-1', payment_amount: 20 });
  });

  it('refuses a token signed with another key, with another algorithm, or with none, saying only that it does not verify', async () => {
    const forged = [
      await sign({ order_id: 'ORD-1', exp: seconds + 600 }, { key: 'sk_another_merchant' }),
      await sign({ order_id: 'ORD-1', exp: seconds + 600 }, { alg: 'HS512' }),
      new UnsecuredJWT({ order_id: 'ORD-1', exp: seconds + 600 }).encode(),
    ];
    for (const token of forged) {
      const refused = await refusal(token);
      expect(refused).toEqual({ type: UnauthorizedError.name, errors: [NOT_VERIFIED] });
      expect(JSON.stringify(refused)).not.toContain(token);
    }
  });

  it('refuses an expired token with 401, and a token without exp or with one more than a day ahead with 400 naming exp', async () => {
    expect(await refusal(await sign({ order_id: 'ORD-1', exp: seconds - 1 }))).toEqual({
      type: UnauthorizedError.name,
      errors: [expect.stringMatching(/^purchase_token expired/)],
    });
    const missing = await refusal(await sign({ order_id: 'ORD-1' }));
    expect(missing).toEqual({
      type: BadRequestError.name,
      errors: [expect.objectContaining({ property: 'purchase_token.exp', message: expect.stringMatching(/exp claim is required/) })],
    });
    const far = await refusal(await sign({ order_id: 'ORD-1', exp: seconds + 24 * 3600 + 60 }));
    expect(far).toEqual({
      type: BadRequestError.name,
      errors: [expect.objectContaining({ property: 'purchase_token.exp', message: expect.stringMatching(/at most 24 hours/) })],
    });
    expect(orderClaims(await verifyPurchaseToken(await sign({ order_id: 'ORD-1', exp: seconds + 24 * 3600 }), SECRET, now))).toEqual({ order_id: 'ORD-1' });
  });

  it('answers 400 for what is not a JWT at all', async () => {
    for (const token of ['hello', 'a.b.c', '', `${'x'.repeat(20)}..`]) {
      expect(await refusal(token)).toEqual({
        type: BadRequestError.name,
        errors: [expect.objectContaining({ property: 'purchase_token', message: expect.stringMatching(/must be a JWT/) })],
      });
    }
  });
});
