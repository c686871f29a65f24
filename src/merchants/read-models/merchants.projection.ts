/** The merchants read model: credentials and settings the guards and presenters need. */
import { docKey } from '../../platform/ids.js';
import { Projection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { MerchantEvent } from '../domain/merchant.js';

export interface MerchantDoc extends ReadDoc {
  id: number;
  name: string;
  access_key: string;
  secret_key: string;
  token_generation: number;
  can_see_recipients: boolean;
  last_modified_at: string;
}

export const merchantsCollection: CollectionDef = { name: 'merchants', indexes: [['access_key']] };

export const merchantsProjection: Projection<MerchantDoc> = {
  name: 'merchants',
  collection: merchantsCollection,
  handles: ['MerchantRegistered', 'MerchantRenamed', 'MerchantSettingsChanged', 'MerchantTokensRevoked', 'MerchantSecretKeyRotated'],
  keys: (event) => [docKey((event.data as { merchantId: number }).merchantId)],
  evolve(doc, recorded) {
    const event = recorded as unknown as MerchantEvent;
    if (event.type === 'MerchantRegistered') {
      const d = event.data;
      return {
        _id: docKey(d.merchantId),
        id: d.merchantId,
        name: d.name,
        access_key: d.accessKey,
        secret_key: d.secretKey,
        token_generation: 0,
        can_see_recipients: d.settings.canSeeRecipients,
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
          last_modified_at: event.data.changedAt,
        };
      }
      case 'MerchantTokensRevoked':
        return { ...doc, token_generation: event.data.generation, last_modified_at: event.data.revokedAt };
      case 'MerchantSecretKeyRotated':
        return { ...doc, secret_key: event.data.secretKey, token_generation: event.data.generation, last_modified_at: event.data.rotatedAt };
    }
  },
};
