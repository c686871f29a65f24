/** Opted-out addresses per merchant, and the status of opt-out jobs. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { OptOutJobEvent } from '../domain/email-opt-out.js';
import { EmailOptedOut, EmailOptOutRemoved } from '../domain/email-opt-out-events.js';

export interface OptOutDoc extends ReadDoc {
  merchant_id: number;
  email_address: string;
  job_id: number | null;
}

export interface OptOutJobDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  status: 'processing' | 'completed';
  email_addresses: string[];
  opted_out_count: number | null;
  already_opted_out_count: number | null;
  completed_at: string | null;
}

export const optOutsCollection: CollectionDef = { name: 'email_opt_outs', indexes: [['merchant_id'], ['merchant_id', 'email_address']] };
export const optOutJobsCollection: CollectionDef = { name: 'email_opt_out_jobs', indexes: [['merchant_id'], ['status']] };

export const optOutKey = (merchantId: number, email: string) => `${docKey(merchantId)}:${email}`;

export const optOutsProjection = defineProjection<OptOutDoc, EmailOptedOut | EmailOptOutRemoved>()({
  name: 'email_opt_outs',
  collection: optOutsCollection,
  handles: ['EmailOptedOut', 'EmailOptOutRemoved'],
  keys: (event) => {
    const d = event.data;
    return [optOutKey(d.merchantId, d.emailAddress)];
  },
  evolve(_doc, event, key) {
    if (event.type === 'EmailOptOutRemoved') return null;
    return {
      _id: key,
      merchant_id: event.data.merchantId,
      email_address: event.data.emailAddress,
      job_id: event.data.jobId,
      created_at: event.data.optedOutAt,
    };
  },
});

export const optOutJobsProjection = defineProjection<OptOutJobDoc, OptOutJobEvent>()({
  name: 'email_opt_out_jobs',
  collection: optOutJobsCollection,
  handles: ['EmailOptOutJobSubmitted', 'EmailOptOutJobCompleted'],
  keys: (event) => [docKey(event.data.jobId)],
  evolve(doc, event) {
    switch (event.type) {
      case 'EmailOptOutJobSubmitted':
        return {
          _id: docKey(event.data.jobId),
          id: event.data.jobId,
          merchant_id: event.data.merchantId,
          status: 'processing',
          email_addresses: event.data.emailAddresses,
          opted_out_count: null,
          already_opted_out_count: null,
          completed_at: null,
          created_at: event.data.submittedAt,
        };
      case 'EmailOptOutJobCompleted':
        return doc
          ? {
              ...doc,
              status: 'completed',
              opted_out_count: event.data.optedOutCount,
              already_opted_out_count: event.data.alreadyOptedOutCount,
              completed_at: event.data.completedAt,
            }
          : null;
    }
  },
});
