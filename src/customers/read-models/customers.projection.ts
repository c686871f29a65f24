/** The customers read model behind v1 and v2 customer queries. */
import type { DomainEvent } from '../../platform/event-store/event-store.js';
import { docKey } from '../../platform/ids.js';
import { lowerCased } from '../../platform/personal-data/personal-fields.js';
import { defineProjection } from '../../platform/projections/projection.js';
import { CollectionDef, ReadDoc } from '../../platform/read-store/read-store.js';
import { CustomerEvent, CustomerFields } from '../domain/customer.js';

export interface CustomerDoc extends ReadDoc {
  id: number;
  merchant_id: number;
  account_id: string;
  email: string | null;
  email_lc: string | null;
  first_name: string | null;
  last_name: string | null;
  first_lc: string | null;
  last_lc: string | null;
  stripe_customer_id: string | null;
  chargebee_customer_id: string | null;
  first_purchase_date: string | null;
  last_purchase_date: string | null;
  last_modified_at: string;
}

export const customersCollection: CollectionDef = {
  name: 'customers',
  indexes: [['merchant_id'], ['merchant_id', 'account_id'], ['merchant_id', 'email_lc']],
  personal: {
    byAddress: [{ match: 'email_lc', erase: ['email', 'email_lc', 'first_name', 'last_name', 'first_lc', 'last_lc'] }],
    byCustomer: [{ match: 'id', erase: ['email', 'email_lc', 'first_name', 'last_name', 'first_lc', 'last_lc'] }],
  },
};

function withFields(doc: CustomerDoc, f: Partial<CustomerFields>): CustomerDoc {
  const next = { ...doc };
  if (f.email !== undefined) next.email = f.email;
  if (f.firstName !== undefined) next.first_name = f.firstName;
  if (f.lastName !== undefined) next.last_name = f.lastName;
  if (f.stripeCustomerId !== undefined) next.stripe_customer_id = f.stripeCustomerId;
  if (f.chargebeeCustomerId !== undefined) next.chargebee_customer_id = f.chargebeeCustomerId;
  next.email_lc = lowerCased(next.email);
  next.first_lc = lowerCased(next.first_name);
  next.last_lc = lowerCased(next.last_name);
  return next;
}

/**
 * A purchase, as far as the customers model reads it: the sales feature records it, and its
 * published-events spec checks that its PurchaseRecorded still matches this.
 */
export type PurchaseOfCustomer = DomainEvent<'PurchaseRecorded', { merchantId: number; customerId: number | null; createdAt: string }>;

export const customersProjection = defineProjection<CustomerDoc, CustomerEvent | PurchaseOfCustomer>()({
  name: 'customers',
  collection: customersCollection,
  handles: ['CustomerRegistered', 'CustomerUpdated', 'PurchaseRecorded'],
  keys: (event) => {
    const customerId = event.data.customerId;
    return customerId === null ? [] : [docKey(customerId)];
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'PurchaseRecorded': {
        // A purchase with customer_id moves the customer's first and last purchase dates, which
        // modifies the customer as a client sees it (an incremental sync by last_modified_at
        // must pick the new dates up).
        if (!doc || doc.merchant_id !== event.data.merchantId) return doc;
        const at = event.data.createdAt;
        const first = doc.first_purchase_date === null || at < doc.first_purchase_date ? at : doc.first_purchase_date;
        const last = doc.last_purchase_date === null || at > doc.last_purchase_date ? at : doc.last_purchase_date;
        if (first === doc.first_purchase_date && last === doc.last_purchase_date) return doc;
        return { ...doc, first_purchase_date: first, last_purchase_date: last, last_modified_at: at > doc.last_modified_at ? at : doc.last_modified_at };
      }
      case 'CustomerRegistered': {
        const d = event.data;
        const base: CustomerDoc = {
          _id: docKey(d.customerId),
          id: d.customerId,
          merchant_id: d.merchantId,
          account_id: d.accountId,
          email: null,
          email_lc: null,
          first_name: null,
          last_name: null,
          first_lc: null,
          last_lc: null,
          stripe_customer_id: null,
          chargebee_customer_id: null,
          first_purchase_date: null,
          last_purchase_date: null,
          created_at: d.registeredAt,
          last_modified_at: d.registeredAt,
        };
        return withFields(base, d);
      }
      case 'CustomerUpdated':
        return doc ? { ...withFields(doc, event.data.changes), last_modified_at: event.data.updatedAt } : null;
    }
  },
});
