import { NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { CustomerEvent, customerDecider, customerStream } from './customer.js';

const now = new Date('2026-04-01T12:00:00.000Z');
const registered: CustomerEvent = {
  type: 'CustomerRegistered',
  data: {
    customerId: 11,
    merchantId: 1,
    accountId: 'acc-1',
    email: 'ann@example.com',
    firstName: 'Ann',
    lastName: null,
    stripeCustomerId: null,
    chargebeeCustomerId: null,
    registeredAt: '2026-03-01T00:00:00.000Z',
  },
};

describe('customer decider', () => {
  it('registers an account id it has not seen, with the given fields and nulls for the rest', () => {
    given(customerDecider, [])
      .when({ type: 'UpsertCustomer', merchantId: 1, accountId: 'acc-1', newCustomerId: 11, fields: { email: 'ann@example.com', firstName: 'Ann' }, now })
      .then([{ ...registered, data: { ...registered.data, registeredAt: now.toISOString() } }]);
  });

  it('updates an existing account id with only what changed, keeping its id', () => {
    given(customerDecider, [registered])
      .when({ type: 'UpsertCustomer', merchantId: 1, accountId: 'acc-1', newCustomerId: 99, fields: { email: 'ann@example.com', lastName: 'Lee' }, now })
      .then([{ type: 'CustomerUpdated', data: { customerId: 11, merchantId: 1, changes: { lastName: 'Lee' }, updatedAt: now.toISOString() } }]);
  });

  it('records nothing when nothing changes', () => {
    given(customerDecider, [registered])
      .when({ type: 'UpsertCustomer', merchantId: 1, accountId: 'acc-1', newCustomerId: 99, fields: { firstName: 'Ann' }, now })
      .then([]);
  });

  it('clears a field given as null', () => {
    given(customerDecider, [registered])
      .when({ type: 'UpsertCustomer', merchantId: 1, accountId: 'acc-1', newCustomerId: 99, fields: { firstName: null }, now })
      .then([{ type: 'CustomerUpdated', data: { customerId: 11, merchantId: 1, changes: { firstName: null }, updatedAt: now.toISOString() } }]);
  });

  it('refuses to update an account id that was never registered', () => {
    given(customerDecider, []).when({ type: 'UpdateCustomer', merchantId: 1, accountId: 'x', fields: {}, now }).thenThrows(NotFoundError);
  });

  it('names one stream per merchant and account id, whatever characters the id holds', () => {
    expect(customerStream(1, 'a/b c')).not.toBe(customerStream(2, 'a/b c'));
    expect(customerStream(1, 'a-1')).not.toBe(customerStream(1, 'a-2'));
    expect(customerStream(1, 'ü/$x')).toMatch(/^customer-1-[A-Za-z0-9_-]+$/);
  });
});
