/** Response schemas of customer.presenters.ts: v1 CustomerExcerpt and SharerExcerpt (spec §2.2), v2 Customer (spec §2.3). */
import { apiLink, dateTime, int, nullable, object, str } from '../../platform/http/response-schemas.js';

export const v1CustomerExcerptProperties = {
  account_id: str('Id assigned by the merchant (not the internal id)'),
  id: str('Copy of account_id'),
  first_name: nullable(str()),
  last_name: nullable(str()),
  email: nullable(str()),
  stripe_customer_id: nullable(str()),
  chargebee_customer_id: nullable(str()),
  detail_uri: apiLink('The full v1 Customer (GET /v1/customers/{id}, by internal id)'),
};

export const V1_CUSTOMER_EXCERPT = object(v1CustomerExcerptProperties);

export const V1_SHARER = object(
  {
    name: nullable(str('First and last name of the customer, when known')),
    email: nullable(str('Address to receive the reward, if eventually eligible')),
    customer: nullable(V1_CUSTOMER_EXCERPT, 'The advocate customer, when the record names one'),
    facebook_friends_count: nullable(int(), 'Not known to the service: always null'),
    twitter_followers_count: nullable(int(), 'Not known to the service: always null'),
    birthdate: nullable(str(undefined, { format: 'date' }), 'Not known to the service: always null'),
  },
  { description: 'SharerExcerpt: the advocate' },
);

export const V2_CUSTOMER = object({
  id: int('Internal service id (not the merchant’s account id)'),
  account_id: str('Id assigned by the merchant'),
  email_address: nullable(str()),
  first_name: nullable(str()),
  last_name: nullable(str()),
  stripe_customer_id: nullable(str()),
  chargebee_customer_id: nullable(str()),
  first_purchase_date: nullable(dateTime('First recorded purchase')),
  last_purchase_date: nullable(dateTime('Most recent recorded purchase')),
  created_at: dateTime(),
  last_modified_at: dateTime(),
});
