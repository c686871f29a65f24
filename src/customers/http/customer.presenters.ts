/** v1 and v2 shapes of a customer (spec §2.2 CustomerExcerpt/Customer, §2.3 Customer). */
import { Links } from '../../platform/http/links.js';
import { CustomerDoc } from '../read-models/customers.projection.js';

/** v1 timestamps of customers carry no time zone (spec §2.2); they are UTC. */
export function v1LocalTime(iso: string): string {
  return iso.slice(0, 19);
}

export function v1CustomerExcerpt(doc: CustomerDoc, links: Links) {
  return {
    account_id: doc.account_id,
    id: doc.account_id,
    first_name: doc.first_name,
    last_name: doc.last_name,
    email: doc.email,
    stripe_customer_id: doc.stripe_customer_id,
    chargebee_customer_id: doc.chargebee_customer_id,
    detail_uri: links.v1('customers', doc.id),
  };
}

/** SharerExcerpt (spec §2.2): the advocate, by customer record (when known) and reward email. */
export function v1Sharer(customer: CustomerDoc | null, email: string | null, links: Links) {
  return {
    name: customer ? [customer.first_name, customer.last_name].filter(Boolean).join(' ') || null : null,
    email,
    customer: customer ? v1CustomerExcerpt(customer, links) : null,
    facebook_friends_count: null,
    twitter_followers_count: null,
    birthdate: null,
  };
}

export function v2Customer(doc: CustomerDoc) {
  return {
    id: doc.id,
    account_id: doc.account_id,
    email_address: doc.email,
    first_name: doc.first_name,
    last_name: doc.last_name,
    stripe_customer_id: doc.stripe_customer_id,
    chargebee_customer_id: doc.chargebee_customer_id,
    first_purchase_date: doc.first_purchase_date,
    last_purchase_date: doc.last_purchase_date,
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
  };
}
