/** A merchant's integration settings: the client-API URLs the share and reward flows call, and the custom headers of outbound requests. */
import { Inject, Injectable } from '@nestjs/common';
import { docKey } from '../../platform/ids.js';
import { READ_STORE, ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { ClientApiSettings, CustomHeaderSettings } from '../domain/integration-settings.js';
import { IntegrationSettingsDoc, emptyIntegrationSettings, integrationSettingsCollection } from './integration-settings.projection.js';

@Injectable()
export class IntegrationSettingsQueries {
  private readonly collection: ReadCollection<IntegrationSettingsDoc>;

  constructor(@Inject(READ_STORE) readStore: ReadStore) {
    this.collection = readStore.collection<IntegrationSettingsDoc>(integrationSettingsCollection);
  }

  /** The merchant's settings document (all empty when never configured). */
  async doc(merchantId: number): Promise<IntegrationSettingsDoc> {
    return (await this.collection.get(docKey(merchantId))) ?? emptyIntegrationSettings(merchantId, new Date(0).toISOString());
  }

  /** The merchant's client-API URLs; null where none is configured. */
  async clientApi(merchantId: number): Promise<ClientApiSettings> {
    const doc = await this.doc(merchantId);
    return { shareInstructionsUrl: doc.share_instructions_url, rewardValidationUrl: doc.reward_validation_url };
  }

  async customHeaders(merchantId: number): Promise<CustomHeaderSettings> {
    const doc = await this.doc(merchantId);
    return { headers: doc.custom_headers, replaceSignature: doc.replace_signature };
  }
}
