/**
 * Customers: the merchant's own customers, known by the merchant's account id (spec §1 rule 3).
 * The stream is named after (merchant, account id), so the event store itself guarantees one
 * customer per account id: two concurrent registrations cannot both append to a new stream.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { NotFoundError } from '../../platform/errors.js';

export interface CustomerFields {
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  stripeCustomerId: string | null;
  chargebeeCustomerId: string | null;
}

export type CustomerRegistered = DomainEvent<
  'CustomerRegistered',
  { customerId: number; merchantId: number; accountId: string; registeredAt: string } & CustomerFields
>;
export type CustomerUpdated = DomainEvent<'CustomerUpdated', { customerId: number; merchantId: number; changes: Partial<CustomerFields>; updatedAt: string }>;
export type CustomerEvent = CustomerRegistered | CustomerUpdated;

/** Fields left undefined are not touched; null clears a field. */
export type CustomerCommand =
  | {
      type: 'UpsertCustomer';
      merchantId: number;
      accountId: string;
      /** The id to use if this account id is new. */
      newCustomerId: number;
      fields: Partial<CustomerFields>;
      now: Date;
    }
  | { type: 'UpdateCustomer'; merchantId: number; accountId: string; fields: Partial<CustomerFields>; now: Date };

export interface CustomerState {
  customerId: number | null;
  fields: CustomerFields;
}

export const customerStream = (merchantId: number, accountId: string) => `customer-${merchantId}-${Buffer.from(accountId, 'utf8').toString('base64url')}`;

const EMPTY: CustomerFields = { email: null, firstName: null, lastName: null, stripeCustomerId: null, chargebeeCustomerId: null };

function changesOf(state: CustomerFields, given: Partial<CustomerFields>): Partial<CustomerFields> {
  const changes: Partial<CustomerFields> = {};
  for (const key of Object.keys(EMPTY) as (keyof CustomerFields)[]) {
    if (given[key] !== undefined && given[key] !== state[key]) changes[key] = given[key];
  }
  return changes;
}

export const customerDecider: Decider<CustomerCommand, CustomerState, CustomerEvent> = {
  initialState: () => ({ customerId: null, fields: EMPTY }),

  decide(command, state) {
    const at = command.now.toISOString();
    if (state.customerId === null) {
      if (command.type === 'UpdateCustomer') throw new NotFoundError([`customer with account_id ${command.accountId} not found`]);
      return [
        {
          type: 'CustomerRegistered',
          data: {
            customerId: command.newCustomerId,
            merchantId: command.merchantId,
            accountId: command.accountId,
            ...EMPTY,
            ...Object.fromEntries(Object.entries(command.fields).filter(([, v]) => v !== undefined)),
            registeredAt: at,
          },
        },
      ];
    }
    switch (command.type) {
      case 'UpsertCustomer':
      case 'UpdateCustomer': {
        const changes = changesOf(state.fields, command.fields);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'CustomerUpdated', data: { customerId: state.customerId, merchantId: command.merchantId, changes, updatedAt: at } }];
      }
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'CustomerRegistered': {
        const { email, firstName, lastName, stripeCustomerId, chargebeeCustomerId } = event.data;
        return { customerId: event.data.customerId, fields: { email, firstName, lastName, stripeCustomerId, chargebeeCustomerId } };
      }
      case 'CustomerUpdated':
        return { ...state, fields: { ...state.fields, ...event.data.changes } };
      default:
        return unreachable(event);
    }
  },
};
