/** Erasure jobs as the merchant reads them (GET /v2/user_data/delete/{id}): counts and times, never the addresses. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { documentsIn, UserDataDeletionEvent } from '../domain/user-data-deletion.js';

export interface DeletionJobDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  status: 'processing' | 'completed';
  email_addresses_count: number;
  customer_ids_count: number;
  account_ids_count: number;
  notification_email_given: boolean;
  customers_erased_count: number | null;
  documents_scrubbed_count: number | null;
  erased_at: string | null;
  completed_at: string | null;
}

export const deletionJobsCollection: CollectionDef = { name: 'user_data_deletions', indexes: [['merchant_id'], ['status']] };

export const deletionJobsProjection = defineProjection<DeletionJobDoc, UserDataDeletionEvent>()({
  name: 'user_data_deletions',
  collection: deletionJobsCollection,
  handles: ['UserDataDeletionRequested', 'PersonalDataErased', 'UserDataDeletionCompleted'],
  keys: (event) => [docKey(event.data.jobId)],
  evolve(doc, event, key) {
    switch (event.type) {
      case 'UserDataDeletionRequested': {
        const d = event.data;
        return {
          _id: key,
          created_at: d.requestedAt,
          id: d.jobId,
          merchant_id: d.merchantId,
          status: 'processing',
          email_addresses_count: d.emailAddressesCount,
          customer_ids_count: d.customerIds.length,
          account_ids_count: d.accountIdsCount,
          // The address itself is sealed under the job's key, which is gone once the job completes.
          notification_email_given: d.notificationEmail !== null,
          customers_erased_count: null,
          documents_scrubbed_count: null,
          erased_at: null,
          completed_at: null,
        };
      }
      case 'PersonalDataErased':
        return doc && { ...doc, documents_scrubbed_count: documentsIn(event.data.scrub), erased_at: event.data.erasedAt };
      case 'UserDataDeletionCompleted':
        return doc && { ...doc, status: 'completed', customers_erased_count: event.data.customerIds.length, completed_at: event.data.completedAt };
    }
  },
});
