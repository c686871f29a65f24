/**
 * Merchant accounts: registration with an access key and a secret key (spec §1 rule 2),
 * settings, the token generation that DELETE /v2/tokens/merchant bumps to revoke every
 * outstanding token, and a new secret key when the old one may have leaked (which revokes every
 * token too). The publishable key and allowed origins open the browser routes (docs/embedding.md).
 * Pure: keys, ids and time arrive in the command.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { ConflictError, NotFoundError, UnauthorizedError } from '../../platform/errors.js';

/** What a customer token's share message may hold: none, text without links or domains, or anything. */
export const SHARE_MESSAGE_POLICIES = ['off', 'plain', 'free'] as const;
export type ShareMessagePolicy = (typeof SHARE_MESSAGE_POLICIES)[number];

export interface MerchantSettings {
  canSeeRecipients: boolean;
  /** Share email recipients one advocate customer may address per UTC day. */
  shareRecipientsPerCustomerPerDay: number;
  /** Share email recipients the merchant's shares may address per UTC day, all advocates together. */
  shareRecipientsPerMerchantPerDay: number;
  customerShareMessagePolicy: ShareMessagePolicy;
  /** Days a page keeps the referral code a visitor arrived with (the embedded library's cookie, docs/embedding.md). */
  attributionDays: number;
}

/** Settings a merchant has not set read with these (registrations record only canSeeRecipients). */
export const DEFAULT_MERCHANT_SETTINGS: MerchantSettings = {
  canSeeRecipients: false,
  shareRecipientsPerCustomerPerDay: 50,
  shareRecipientsPerMerchantPerDay: 5000,
  customerShareMessagePolicy: 'plain',
  attributionDays: 30,
};

export type MerchantRegistered = DomainEvent<
  'MerchantRegistered',
  /** `publishableKey`: absent in registrations recorded before publishable keys (such a merchant has none until one is rotated in). */
  {
    merchantId: number;
    name: string;
    accessKey: string;
    secretKey: string;
    publishableKey?: string;
    settings: Pick<MerchantSettings, 'canSeeRecipients'> & Partial<MerchantSettings>;
    registeredAt: string;
  }
>;
export type MerchantRenamed = DomainEvent<'MerchantRenamed', { merchantId: number; name: string; renamedAt: string }>;
export type MerchantSettingsChanged = DomainEvent<'MerchantSettingsChanged', { merchantId: number; settings: Partial<MerchantSettings>; changedAt: string }>;
export type MerchantTokensRevoked = DomainEvent<'MerchantTokensRevoked', { merchantId: number; generation: number; revokedAt: string }>;
/** A new secret key; every token issued before is revoked (`generation`), as by MerchantTokensRevoked. */
export type MerchantSecretKeyRotated = DomainEvent<
  'MerchantSecretKeyRotated',
  { merchantId: number; secretKey: string; generation: number; rotatedAt: string }
>;

/** A new publishable key; the old one stops opening the browser routes. */
export type MerchantPublishableKeyRotated = DomainEvent<'MerchantPublishableKeyRotated', { merchantId: number; publishableKey: string; rotatedAt: string }>;
/** The whole new list, and those the previous list had that it drops (the origins read model deletes them). */
export type MerchantAllowedOriginsChanged = DomainEvent<
  'MerchantAllowedOriginsChanged',
  { merchantId: number; allowedOrigins: string[]; removedOrigins: string[]; changedAt: string }
>;

export type MerchantEvent =
  | MerchantRegistered
  | MerchantRenamed
  | MerchantSettingsChanged
  | MerchantTokensRevoked
  | MerchantSecretKeyRotated
  | MerchantPublishableKeyRotated
  | MerchantAllowedOriginsChanged;

export type MerchantCommand =
  | { type: 'RegisterMerchant'; merchantId: number; name: string; accessKey: string; secretKey: string; publishableKey: string; now: Date }
  /** `allowedOrigins`: the whole new list (normalised, docs/embedding.md), or undefined for unchanged. */
  | { type: 'ChangeMerchant'; merchantId: number; name?: string; settings?: Partial<MerchantSettings>; allowedOrigins?: string[]; now: Date }
  /** `generation`: that of the token the request came with; a token revoked meanwhile revokes nothing. */
  | { type: 'RevokeMerchantTokens'; merchantId: number; generation: number; now: Date }
  | { type: 'RotateMerchantSecretKey'; merchantId: number; secretKey: string; now: Date }
  | { type: 'RotateMerchantPublishableKey'; merchantId: number; publishableKey: string; now: Date };

export interface MerchantState {
  exists: boolean;
  name: string;
  settings: MerchantSettings;
  tokenGeneration: number;
  allowedOrigins: string[];
}

export const merchantStream = (merchantId: number) => `merchant-${merchantId}`;

const notFound = (id: number) => new NotFoundError([`merchant ${id} not found`]);

export const merchantDecider: Decider<MerchantCommand, MerchantState, MerchantEvent> = {
  initialState: () => ({ exists: false, name: '', settings: DEFAULT_MERCHANT_SETTINGS, tokenGeneration: 0, allowedOrigins: [] }),

  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'RegisterMerchant':
        if (state.exists) throw new ConflictError([`merchant ${command.merchantId} already exists`]);
        return [
          {
            type: 'MerchantRegistered',
            data: {
              merchantId: command.merchantId,
              name: command.name,
              accessKey: command.accessKey,
              secretKey: command.secretKey,
              publishableKey: command.publishableKey,
              settings: { canSeeRecipients: false },
              registeredAt: at,
            },
          },
        ];
      case 'ChangeMerchant': {
        if (!state.exists) throw notFound(command.merchantId);
        const events: MerchantEvent[] = [];
        if (command.name !== undefined && command.name !== state.name) {
          events.push({ type: 'MerchantRenamed', data: { merchantId: command.merchantId, name: command.name, renamedAt: at } });
        }
        const changed = Object.fromEntries(
          Object.entries(command.settings ?? {}).filter(([k, v]) => v !== undefined && state.settings[k as keyof MerchantSettings] !== v),
        );
        if (Object.keys(changed).length > 0) {
          events.push({ type: 'MerchantSettingsChanged', data: { merchantId: command.merchantId, settings: changed, changedAt: at } });
        }
        const origins = command.allowedOrigins;
        if (origins !== undefined && JSON.stringify(origins) !== JSON.stringify(state.allowedOrigins)) {
          const removedOrigins = state.allowedOrigins.filter((origin) => !origins.includes(origin));
          events.push({
            type: 'MerchantAllowedOriginsChanged',
            data: { merchantId: command.merchantId, allowedOrigins: origins, removedOrigins, changedAt: at },
          });
        }
        return events;
      }
      case 'RevokeMerchantTokens':
        if (!state.exists) throw notFound(command.merchantId);
        // Two DELETEs with one token (a retry, two servers): the second must not revoke the tokens
        // issued after the first one answered. It is answered as any request with a revoked token.
        if (command.generation !== state.tokenGeneration) {
          throw new UnauthorizedError(['invalid or revoked token']);
        }
        return [
          {
            type: 'MerchantTokensRevoked',
            data: { merchantId: command.merchantId, generation: state.tokenGeneration + 1, revokedAt: at },
          },
        ];
      case 'RotateMerchantSecretKey':
        if (!state.exists) throw notFound(command.merchantId);
        return [
          {
            type: 'MerchantSecretKeyRotated',
            data: { merchantId: command.merchantId, secretKey: command.secretKey, generation: state.tokenGeneration + 1, rotatedAt: at },
          },
        ];
      case 'RotateMerchantPublishableKey':
        if (!state.exists) throw notFound(command.merchantId);
        return [{ type: 'MerchantPublishableKeyRotated', data: { merchantId: command.merchantId, publishableKey: command.publishableKey, rotatedAt: at } }];
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'MerchantRegistered':
        return { ...state, exists: true, name: event.data.name, settings: { ...DEFAULT_MERCHANT_SETTINGS, ...event.data.settings } };
      case 'MerchantRenamed':
        return { ...state, name: event.data.name };
      case 'MerchantSettingsChanged':
        return { ...state, settings: { ...state.settings, ...event.data.settings } };
      case 'MerchantTokensRevoked':
      case 'MerchantSecretKeyRotated':
        return { ...state, tokenGeneration: event.data.generation };
      case 'MerchantPublishableKeyRotated':
        return state;
      case 'MerchantAllowedOriginsChanged':
        return { ...state, allowedOrigins: event.data.allowedOrigins };
      default:
        return unreachable(event);
    }
  },
};
