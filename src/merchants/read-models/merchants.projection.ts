/** The merchants read model: credentials and settings the guards and presenters need. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { DEFAULT_MERCHANT_SETTINGS, MerchantAllowedOriginsChanged, MerchantEvent, ShareMessagePolicy } from '../domain/merchant.js';

export interface MerchantDoc extends ReadDoc {
  id: number;
  name: string;
  access_key: string;
  secret_key: string;
  token_generation: number;
  can_see_recipients: boolean;
  /** Absent in documents a durable read store kept from before the setting: read them through shareSettings. */
  share_recipients_per_customer_per_day?: number;
  share_recipients_per_merchant_per_day?: number;
  customer_share_message_policy?: ShareMessagePolicy;
  /** Absent in documents kept from before the setting: read it through attributionDays. */
  attribution_days?: number;
  /** Absent for a merchant registered before publishable keys, until one is rotated in. */
  publishable_key?: string;
  /** Origins whose pages may call the browser routes; absent = none. */
  allowed_origins?: string[];
  last_modified_at: string;
}

/** The merchant's share settings, defaults filled in. */
export function shareSettings(
  doc: MerchantDoc,
): Required<Pick<MerchantDoc, 'share_recipients_per_customer_per_day' | 'share_recipients_per_merchant_per_day' | 'customer_share_message_policy'>> {
  return {
    share_recipients_per_customer_per_day: doc.share_recipients_per_customer_per_day ?? DEFAULT_MERCHANT_SETTINGS.shareRecipientsPerCustomerPerDay,
    share_recipients_per_merchant_per_day: doc.share_recipients_per_merchant_per_day ?? DEFAULT_MERCHANT_SETTINGS.shareRecipientsPerMerchantPerDay,
    customer_share_message_policy: doc.customer_share_message_policy ?? DEFAULT_MERCHANT_SETTINGS.customerShareMessagePolicy,
  };
}

/** Days a page keeps a visitor's referral code (docs/embedding.md), the default filled in. */
export function attributionDays(doc: MerchantDoc): number {
  return doc.attribution_days ?? DEFAULT_MERCHANT_SETTINGS.attributionDays;
}

function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export const merchantsCollection: CollectionDef = { name: 'merchants', indexes: [['access_key'], ['publishable_key']] };

export const merchantsProjection = defineProjection<MerchantDoc, MerchantEvent>()({
  name: 'merchants',
  collection: merchantsCollection,
  handles: [
    'MerchantRegistered',
    'MerchantRenamed',
    'MerchantSettingsChanged',
    'MerchantTokensRevoked',
    'MerchantSecretKeyRotated',
    'MerchantPublishableKeyRotated',
    'MerchantAllowedOriginsChanged',
  ],
  keys: (event) => [docKey(event.data.merchantId)],
  evolve(doc, event) {
    if (event.type === 'MerchantRegistered') {
      const d = event.data;
      const settings = { ...DEFAULT_MERCHANT_SETTINGS, ...d.settings };
      return {
        _id: docKey(d.merchantId),
        id: d.merchantId,
        name: d.name,
        access_key: d.accessKey,
        secret_key: d.secretKey,
        ...(d.publishableKey !== undefined ? { publishable_key: d.publishableKey } : {}),
        token_generation: 0,
        can_see_recipients: settings.canSeeRecipients,
        share_recipients_per_customer_per_day: settings.shareRecipientsPerCustomerPerDay,
        share_recipients_per_merchant_per_day: settings.shareRecipientsPerMerchantPerDay,
        customer_share_message_policy: settings.customerShareMessagePolicy,
        attribution_days: settings.attributionDays,
        created_at: d.registeredAt,
        last_modified_at: d.registeredAt,
      };
    }
    if (!doc) return null;
    switch (event.type) {
      case 'MerchantRenamed':
        return { ...doc, name: event.data.name, last_modified_at: event.data.renamedAt };
      case 'MerchantSettingsChanged': {
        const s = event.data.settings;
        return {
          ...doc,
          can_see_recipients: s.canSeeRecipients ?? doc.can_see_recipients,
          ...shareSettings(doc),
          ...defined({
            share_recipients_per_customer_per_day: s.shareRecipientsPerCustomerPerDay,
            share_recipients_per_merchant_per_day: s.shareRecipientsPerMerchantPerDay,
            customer_share_message_policy: s.customerShareMessagePolicy,
            attribution_days: s.attributionDays,
          }),
          last_modified_at: event.data.changedAt,
        };
      }
      case 'MerchantTokensRevoked':
        return { ...doc, token_generation: event.data.generation, last_modified_at: event.data.revokedAt };
      case 'MerchantSecretKeyRotated':
        return { ...doc, secret_key: event.data.secretKey, token_generation: event.data.generation, last_modified_at: event.data.rotatedAt };
      case 'MerchantPublishableKeyRotated':
        return { ...doc, publishable_key: event.data.publishableKey, last_modified_at: event.data.rotatedAt };
      case 'MerchantAllowedOriginsChanged':
        return { ...doc, allowed_origins: event.data.allowedOrigins, last_modified_at: event.data.changedAt };
    }
  },
});

/** One origin one merchant allows: what a CORS preflight, which carries no key, is answered from. */
export interface AllowedOriginDoc extends ReadDoc {
  origin: string;
  merchant_id: number;
}

export const allowedOriginsCollection: CollectionDef = { name: 'allowed_origins', indexes: [['origin']] };

const originKey = (merchantId: number, origin: string) => `${merchantId} ${origin}`;

export const allowedOriginsProjection = defineProjection<AllowedOriginDoc, MerchantAllowedOriginsChanged>()({
  name: 'allowed_origins',
  collection: allowedOriginsCollection,
  handles: ['MerchantAllowedOriginsChanged'],
  keys(event) {
    const d = event.data;
    return [...d.allowedOrigins, ...d.removedOrigins].map((origin) => originKey(d.merchantId, origin));
  },
  evolve(doc, event, key) {
    const d = event.data;
    const origin = key.slice(key.indexOf(' ') + 1);
    if (!d.allowedOrigins.includes(origin)) return null;
    return doc ?? { _id: key, origin, merchant_id: d.merchantId, created_at: d.changedAt };
  },
});
