/** The sales events other features read through views of their own: each view must still match what sales records. */
import { customersProjection, type PurchaseOfCustomer } from '../customers/read-models/customers.projection.js';
import { docKey } from '../platform/ids.js';
import type { PurchaseRecorded } from './domain/purchase.js';

/** Compiles only while every PurchaseRecorded is a PurchaseOfCustomer. */
const asCustomersRead = (event: PurchaseRecorded): PurchaseOfCustomer => event;

describe('events sales publishes', () => {
  it('PurchaseRecorded moves the buyer’s purchase dates in the customers model', () => {
    const purchase: PurchaseRecorded = {
      type: 'PurchaseRecorded',
      data: {
        purchaseId: 1,
        merchantId: 3,
        orderId: 'A-1',
        paymentAmount: 20,
        newCustomer: null,
        couponCode: null,
        referralCode: null,
        emailAddress: null,
        ipAddress: null,
        referrer: null,
        customerId: 9,
        widgetId: null,
        products: [],
        createdAt: '2026-05-02T10:00:00.000Z',
      },
    };
    const customer = customersProjection.evolve(
      null,
      {
        type: 'CustomerRegistered',
        data: {
          customerId: 9,
          merchantId: 3,
          accountId: 'ada',
          registeredAt: '2026-05-01T10:00:00.000Z',
          email: null,
          firstName: null,
          lastName: null,
          stripeCustomerId: null,
          chargebeeCustomerId: null,
        },
      } as never,
      docKey(9),
    );
    expect(customer).toMatchObject({ first_purchase_date: null });
    const after = customersProjection.evolve(customer, asCustomersRead(purchase) as never, docKey(9));
    expect(after).toMatchObject({ first_purchase_date: '2026-05-02T10:00:00.000Z', last_purchase_date: '2026-05-02T10:00:00.000Z' });
  });
});
