import { ConflictError, NotFoundError, UnauthorizedError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { MerchantEvent, merchantDecider } from './merchant.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const registered: MerchantEvent = {
  type: 'MerchantRegistered',
  data: {
    merchantId: 1,
    name: 'Shop',
    accessKey: 'ak',
    secretKey: 'sk',
    publishableKey: 'pk',
    settings: { canSeeRecipients: false },
    registeredAt: '2026-02-01T00:00:00.000Z',
  },
};

describe('merchant decider', () => {
  it('registers a new merchant with recipients hidden by default', () => {
    given(merchantDecider, [])
      .when({ type: 'RegisterMerchant', merchantId: 1, name: 'Shop', accessKey: 'ak', secretKey: 'sk', publishableKey: 'pk', now })
      .then([{ ...registered, data: { ...registered.data, registeredAt: now.toISOString() } }]);
  });

  it('refuses to register the same merchant twice', () => {
    given(merchantDecider, [registered])
      .when({ type: 'RegisterMerchant', merchantId: 1, name: 'X', accessKey: 'a', secretKey: 's', publishableKey: 'p', now })
      .thenThrows(ConflictError);
  });

  it('bumps the token generation on each revocation', () => {
    given(merchantDecider, [registered, { type: 'MerchantTokensRevoked', data: { merchantId: 1, generation: 1, revokedAt: 'x' } }])
      .when({ type: 'RevokeMerchantTokens', merchantId: 1, generation: 1, now })
      .then([{ type: 'MerchantTokensRevoked', data: { merchantId: 1, generation: 2, revokedAt: now.toISOString() } }]);
  });

  it('refuses a revocation with a token of an earlier generation: it revokes nothing issued since', () => {
    given(merchantDecider, [registered, { type: 'MerchantTokensRevoked', data: { merchantId: 1, generation: 1, revokedAt: 'x' } }])
      .when({ type: 'RevokeMerchantTokens', merchantId: 1, generation: 0, now })
      .thenThrows(UnauthorizedError);
  });

  it('rotates the secret key, revoking every token issued before', () => {
    given(merchantDecider, [registered, { type: 'MerchantTokensRevoked', data: { merchantId: 1, generation: 1, revokedAt: 'x' } }])
      .when({ type: 'RotateMerchantSecretKey', merchantId: 1, secretKey: 'sk_new', now })
      .then([{ type: 'MerchantSecretKeyRotated', data: { merchantId: 1, secretKey: 'sk_new', generation: 2, rotatedAt: now.toISOString() } }]);
    given(merchantDecider, []).when({ type: 'RotateMerchantSecretKey', merchantId: 9, secretKey: 'sk_new', now }).thenThrows(NotFoundError);
  });

  it('records only what changes', () => {
    given(merchantDecider, [registered])
      .when({ type: 'ChangeMerchant', merchantId: 1, name: 'Shop', settings: { canSeeRecipients: true }, now })
      .then([{ type: 'MerchantSettingsChanged', data: { merchantId: 1, settings: { canSeeRecipients: true }, changedAt: now.toISOString() } }]);
    given(merchantDecider, [registered])
      .when({ type: 'ChangeMerchant', merchantId: 1, name: 'Shop', settings: { canSeeRecipients: false }, now })
      .then([]);
  });

  it('reads share settings a registration did not record with their defaults, so a change to a default value records nothing', () => {
    given(merchantDecider, [registered])
      .when({ type: 'ChangeMerchant', merchantId: 1, settings: { shareRecipientsPerCustomerPerDay: 50, customerShareMessagePolicy: 'plain' }, now })
      .then([]);
    given(merchantDecider, [registered])
      .when({ type: 'ChangeMerchant', merchantId: 1, settings: { shareRecipientsPerMerchantPerDay: 200, customerShareMessagePolicy: 'off' }, now })
      .then([
        {
          type: 'MerchantSettingsChanged',
          data: { merchantId: 1, settings: { shareRecipientsPerMerchantPerDay: 200, customerShareMessagePolicy: 'off' }, changedAt: now.toISOString() },
        },
      ]);
  });

  it('refuses changes and revocations for an unknown merchant', () => {
    given(merchantDecider, []).when({ type: 'RevokeMerchantTokens', merchantId: 9, generation: 0, now }).thenThrows(NotFoundError);
    given(merchantDecider, []).when({ type: 'ChangeMerchant', merchantId: 9, name: 'x', now }).thenThrows(NotFoundError);
  });

  it('rotates the publishable key without touching the token generation', () => {
    given(merchantDecider, [registered])
      .when({ type: 'RotateMerchantPublishableKey', merchantId: 1, publishableKey: 'pk_new', now })
      .then([{ type: 'MerchantPublishableKeyRotated', data: { merchantId: 1, publishableKey: 'pk_new', rotatedAt: now.toISOString() } }]);
    given(merchantDecider, []).when({ type: 'RotateMerchantPublishableKey', merchantId: 1, publishableKey: 'pk_new', now }).thenThrows(NotFoundError);
  });

  it('records a new list of allowed origins with those it drops, and nothing when the list is the same', () => {
    const allowed: MerchantEvent = {
      type: 'MerchantAllowedOriginsChanged',
      data: { merchantId: 1, allowedOrigins: ['https://a.example', 'https://b.example'], removedOrigins: [], changedAt: 'x' },
    };
    given(merchantDecider, [registered, allowed])
      .when({ type: 'ChangeMerchant', merchantId: 1, allowedOrigins: ['https://b.example', 'https://c.example'], now })
      .then([
        {
          type: 'MerchantAllowedOriginsChanged',
          data: {
            merchantId: 1,
            allowedOrigins: ['https://b.example', 'https://c.example'],
            removedOrigins: ['https://a.example'],
            changedAt: now.toISOString(),
          },
        },
      ]);
    given(merchantDecider, [registered, allowed])
      .when({ type: 'ChangeMerchant', merchantId: 1, allowedOrigins: ['https://a.example', 'https://b.example'], now })
      .then([]);
    given(merchantDecider, [registered, allowed]).when({ type: 'ChangeMerchant', merchantId: 1, name: 'Shop', now }).then([]);
  });
});
