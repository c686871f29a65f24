/** A merchant's client-API URLs and custom headers, one document per merchant. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { IntegrationSettingsEvent } from '../domain/integration-settings.js';

export interface IntegrationSettingsDoc extends ReadDoc {
  merchant_id: number;
  share_instructions_url: string | null;
  reward_validation_url: string | null;
  client_api_modified_at: string | null;
  custom_headers: Record<string, string>;
  replace_signature: boolean;
  custom_headers_modified_at: string | null;
}

export const integrationSettingsCollection: CollectionDef = { name: 'merchant_integrations', indexes: [] };

export function emptyIntegrationSettings(merchantId: number, at: string): IntegrationSettingsDoc {
  return {
    _id: docKey(merchantId),
    merchant_id: merchantId,
    share_instructions_url: null,
    reward_validation_url: null,
    client_api_modified_at: null,
    custom_headers: {},
    replace_signature: false,
    custom_headers_modified_at: null,
    created_at: at,
  };
}

export const integrationSettingsProjection = defineProjection<IntegrationSettingsDoc, IntegrationSettingsEvent>()({
  name: 'merchant_integrations',
  collection: integrationSettingsCollection,
  handles: ['ClientApiConfigured', 'CustomHeadersConfigured'],
  keys: (event) => [docKey(event.data.merchantId)],
  evolve(doc, event) {
    const current = doc ?? emptyIntegrationSettings(event.data.merchantId, event.data.configuredAt);
    switch (event.type) {
      case 'ClientApiConfigured':
        return {
          ...current,
          share_instructions_url: event.data.shareInstructionsUrl,
          reward_validation_url: event.data.rewardValidationUrl,
          client_api_modified_at: event.data.configuredAt,
        };
      case 'CustomHeadersConfigured':
        return {
          ...current,
          custom_headers: event.data.headers,
          replace_signature: event.data.replaceSignature,
          custom_headers_modified_at: event.data.configuredAt,
        };
    }
  },
});
