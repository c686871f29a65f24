/** Opted-out addresses per merchant, and the status of opt-out jobs. */
import { docKey } from '../../platform/ids.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { OptOutJobEvent } from '../domain/email-opt-out.js';
import { EmailOptedOut, EmailOptOutRemoved } from '../domain/email-opt-out-events.js';

export interface OptOutDoc extends ReadDoc {
  merchant_id: number;
  /** Null once erased: the opt-out holds on by `email_key`. */
  email_address: string | null;
  /** The address's keyed hash (PersonalDataEventStore.emailKey), also in `_id`; absent from documents of events recorded before it. */
  email_key?: string | null;
  job_id: number | null;
}

export interface OptOutJobDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  status: 'processing' | 'completed';
  /** An erased address is null (read-model erasure). */
  email_addresses: (string | null)[];
  opted_out_count: number | null;
  already_opted_out_count: number | null;
  completed_at: string | null;
}

/** An erased address leaves its opt-out in place, found by its key (`_id`, `email_key`). */
export const optOutsCollection: CollectionDef = {
  name: 'email_opt_outs',
  indexes: [['merchant_id'], ['merchant_id', 'email_address']],
  personal: { byAddress: [{ match: 'email_address', erase: ['email_address'] }] },
};
export const optOutJobsCollection: CollectionDef = {
  name: 'email_opt_out_jobs',
  indexes: [['merchant_id'], ['status']],
  personal: { addressLists: [{ list: 'email_addresses' }] },
};

/** The `_id` of an opt-out recorded before events carried the address's key: the address itself. */
export const optOutKey = (merchantId: number, email: string) => `${docKey(merchantId)}:${email}`;

/** The `_id` of an opt-out by the address's keyed hash, which no erasure takes away. */
export const keyedOptOutKey = (merchantId: number, emailKey: string) => `${docKey(merchantId)}#${emailKey}`;

export const optOutsProjection = defineProjection<OptOutDoc, EmailOptedOut | EmailOptOutRemoved>()({
  name: 'email_opt_outs',
  collection: optOutsCollection,
  handles: ['EmailOptedOut', 'EmailOptOutRemoved'],
  // With its key, an event also clears the document its address was kept under before (which it replaces).
  keys: (event) => {
    const d = event.data;
    const byAddress = typeof d.emailAddress === 'string' ? [optOutKey(d.merchantId, d.emailAddress)] : [];
    return d.emailKey === undefined ? byAddress : [keyedOptOutKey(d.merchantId, d.emailKey), ...byAddress];
  },
  evolve(_doc, event, key) {
    if (event.type === 'EmailOptOutRemoved') return null;
    const d = event.data;
    if (d.emailKey !== undefined && key !== keyedOptOutKey(d.merchantId, d.emailKey)) return null;
    return {
      _id: key,
      merchant_id: d.merchantId,
      email_address: d.emailAddress,
      ...(d.emailKey === undefined ? {} : { email_key: d.emailKey }),
      job_id: d.jobId,
      created_at: d.optedOutAt,
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
