/**
 * The personal values of the customers feature's events (issue 31): everything a customer record
 * holds about the person is sealed under the customer and under the address the event names.
 */
import { customerSubject, emailSubject, fieldsOf, PersonalDataMap } from '../../platform/personal-data/personal-fields.js';
import { CustomerFields, CustomerRegistered, CustomerUpdated } from './customer.js';

const PERSONAL: readonly (keyof CustomerFields)[] = ['email', 'firstName', 'lastName', 'stripeCustomerId', 'chargebeeCustomerId'];

export const customerPersonalData: PersonalDataMap = {
  CustomerRegistered: (d: CustomerRegistered['data']) =>
    fieldsOf(d as unknown as Record<string, unknown>, PERSONAL, [...customerSubject(d.merchantId, d.customerId), ...emailSubject(d.merchantId, d.email)]),
  // An update that names no address is sealed under the customer alone.
  CustomerUpdated: (d: CustomerUpdated['data']) =>
    fieldsOf(
      d.changes as Record<string, unknown>,
      PERSONAL,
      [...customerSubject(d.merchantId, d.customerId), ...emailSubject(d.merchantId, d.changes.email)],
      ['changes'],
    ),
};
