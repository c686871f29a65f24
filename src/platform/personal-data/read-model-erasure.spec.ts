/**
 * Erasing people from read models already built: the plan over the service's own declarations
 * (personalCollections), applied through the erasure projections by replay(), as the runner applies
 * a PersonalDataErased event, on documents shaped like those the features' projections write.
 */
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { replay } from '../projections/projection-runner.js';
import { MemoryReadStore } from '../read-store/memory-read-store.js';
import { CollectionDef, ReadDoc } from '../read-store/read-store.js';
import { personalCollections } from '../../projections.js';
import { erasureProjections, PersonalDataErased, planErasure, ScrubPlan, withNulls } from './read-model-erasure.js';

const M = 7;
const OTHER = 8;
const ADVOCATE = 'Ada@Example.com';
const FRIEND = 'friend@example.com';
const BYSTANDER = 'bob@example.com';
const AT = '2026-01-01T00:00:00.000Z';

const def = (name: string): CollectionDef => {
  const found = personalCollections.find((c) => c.name === name);
  if (!found) throw new Error(`no personal collection ${name}`);
  return found;
};

function customer(id: number, merchantId: number, email: string, first: string, last: string): ReadDoc {
  return {
    _id: `${id}`,
    id,
    merchant_id: merchantId,
    account_id: `acc-${id}`,
    email,
    email_lc: email.toLowerCase(),
    first_name: first,
    last_name: last,
    first_lc: first.toLowerCase(),
    last_lc: last.toLowerCase(),
    stripe_customer_id: null,
    chargebee_customer_id: null,
    first_purchase_date: null,
    last_purchase_date: null,
    created_at: AT,
    last_modified_at: AT,
  };
}

/** The documents one referral leaves: Ada (customer 1) shares with her friend and Bob, the friend (customer 2) buys. */
function referral(merchantId: number): Record<string, ReadDoc[]> {
  // Ids are the service's, unique across merchants: M's are 7001…, OTHER's 8001….
  const n = (id: number) => merchantId * 1000 + id;
  return {
    customers: [customer(n(1), merchantId, ADVOCATE, 'Ada', 'Lovelace'), customer(n(2), merchantId, FRIEND, 'Fred', 'Friend')],
    referral_links: [
      {
        _id: `ADA${merchantId}`,
        code: `ADA${merchantId}`,
        code_lc: `ada${merchantId}`,
        merchant_id: merchantId,
        advocate_customer_id: n(1),
        advocate_email: ADVOCATE,
        advocate_email_lc: ADVOCATE.toLowerCase(),
        ip_address: '10.0.0.1',
        clicks: 3,
        created_at: AT,
      },
    ],
    shares: [
      {
        _id: `${n(10)}`,
        id: n(10),
        merchant_id: merchantId,
        customer_id: n(1),
        referral_code: `ADA${merchantId}`,
        message: 'Try this, love Ada',
        advocate_message: 'Try this, love Ada',
        reward_email_address: ADVOCATE,
        reward_email_lc: ADVOCATE.toLowerCase(),
        email_recipients: [BYSTANDER, 'Friend@Example.com'],
        ip_address: '10.0.0.1',
        skipped_recipients_count: 0,
        created_at: AT,
      },
    ],
    reminder_emails: [
      {
        _id: `${n(11)}`,
        id: n(11),
        merchant_id: merchantId,
        share_id: n(10),
        customer_id: n(1),
        advocate_email_address: ADVOCATE,
        email_recipients_count: 2,
        created_at: AT,
      },
    ],
    email_outbox: [
      {
        _id: `m1-${merchantId}`,
        merchant_id: merchantId,
        to: BYSTANDER,
        to_lc: BYSTANDER,
        subject: 'Ada says hi',
        text: 'Try this, love Ada',
        share_id: n(10),
        failure: null,
        created_at: AT,
      },
      {
        _id: `m2-${merchantId}`,
        merchant_id: merchantId,
        to: 'Friend@Example.com',
        to_lc: FRIEND,
        subject: 'Ada says hi',
        text: 'Try this, love Ada',
        share_id: n(10),
        failure: { reply_code: 550, reply: 'no such user friend@example.com', failed_at: AT },
        created_at: AT,
      },
    ],
    purchases: [
      {
        _id: `${n(20)}`,
        id: n(20),
        merchant_id: merchantId,
        order_id: 'o-1',
        payment_amount: 4200,
        email_address: 'FRIEND@example.com ',
        customer_id: n(2),
        ip_address: '10.0.0.2',
        referrer: 'https://mail.example/inbox',
        created_at: AT,
      },
    ],
    conversions: [
      {
        _id: `${n(30)}`,
        id: n(30),
        merchant_id: merchantId,
        purchase_id: n(20),
        advocate_customer_id: n(1),
        advocate_email_address: ADVOCATE,
        advocate_email_lc: ADVOCATE.toLowerCase(),
        friend_customer_id: n(2),
        friend_email_lc: FRIEND,
        created_at: AT,
      },
    ],
    rewards: [
      {
        _id: `${n(40)}`,
        id: n(40),
        merchant_id: merchantId,
        conversion_id: n(30),
        advocate_customer_id: n(1),
        advocate_email_address: ADVOCATE,
        amount: 500,
        created_at: AT,
      },
    ],
    email_captures: [
      { _id: `${n(50)}`, id: n(50), merchant_id: merchantId, email_address: 'Friend@Example.com', email_lc: FRIEND, ip_address: '10.0.0.2', created_at: AT },
    ],
  };
}

async function storeWith(...sets: Record<string, ReadDoc[]>[]): Promise<MemoryReadStore> {
  const store = new MemoryReadStore();
  for (const set of sets) for (const [name, docs] of Object.entries(set)) for (const doc of docs) await store.collection(def(name)).put(doc, 0n);
  return store;
}

/** Records PersonalDataErased with `scrub` and applies it to `store` as the runner would. */
async function apply(store: MemoryReadStore, scrub: ScrubPlan, collections: readonly CollectionDef[] = personalCollections): Promise<void> {
  const events = new SqliteEventStore({ path: ':memory:' });
  const event: PersonalDataErased = { type: 'PersonalDataErased', data: { jobId: 1, merchantId: M, scrub, erasedAt: AT } };
  await events.append('erasure-1', [event], 'any');
  await replay(events, store, erasureProjections(collections));
  await events.close();
}

const get = (store: MemoryReadStore, name: string, id: string) => store.collection(def(name)).get(id);

describe('read-model erasure over the declared collections', () => {
  it('erasing the friend nulls their address everywhere, leaves the advocate, the bystander and other merchants', async () => {
    const store = await storeWith(referral(M), referral(OTHER));
    const plan = await planErasure(store, personalCollections, M, [' Friend@example.COM'], []);
    expect(plan.conversions).toEqual({ '7030': ['friend_email_lc'] });
    expect(plan.shares).toEqual({ '7010': ['email_recipients.1'] });
    await apply(store, plan);

    expect(await get(store, 'conversions', '7030')).toMatchObject({
      friend_email_lc: null,
      advocate_email_address: ADVOCATE,
      advocate_email_lc: 'ada@example.com',
      friend_customer_id: 7002,
    });
    expect(await get(store, 'customers', '7002')).toMatchObject({
      email: null,
      email_lc: null,
      first_name: null,
      last_name: null,
      first_lc: null,
      last_lc: null,
      account_id: 'acc-7002',
    });
    expect(await get(store, 'customers', '7001')).toMatchObject({ email: ADVOCATE, first_name: 'Ada' });
    expect(await get(store, 'shares', '7010')).toMatchObject({
      email_recipients: [BYSTANDER, null],
      reward_email_address: ADVOCATE,
      message: 'Try this, love Ada',
    });
    expect(await get(store, 'email_outbox', `m2-${M}`)).toMatchObject({
      to: null,
      to_lc: null,
      subject: null,
      text: null,
      failure: { reply_code: 550, reply: null },
    });
    expect(await get(store, 'email_outbox', `m1-${M}`)).toMatchObject({ to: BYSTANDER, text: 'Try this, love Ada' });
    expect(await get(store, 'purchases', '7020')).toMatchObject({
      email_address: null,
      ip_address: null,
      referrer: null,
      payment_amount: 4200,
      customer_id: 7002,
    });
    expect(await get(store, 'email_captures', '7050')).toMatchObject({ email_address: null, email_lc: null, ip_address: null });
    expect(await get(store, 'rewards', '7040')).toMatchObject({ advocate_email_address: ADVOCATE, amount: 500 });

    // The other merchant's copy of the same people is untouched: not planned, and not applied.
    const other = await storeWith(referral(OTHER));
    for (const name of Object.keys(referral(OTHER))) {
      expect(await store.collection(def(name)).list({ where: { merchant_id: OTHER }, limit: 10 })).toEqual(
        await other.collection(def(name)).list({ where: { merchant_id: OTHER }, limit: 10 }),
      );
    }
  });

  it('erasing the advocate by customer id nulls what is theirs, the messages sent for their share included, and keeps the friend and the money', async () => {
    const store = await storeWith(referral(M));
    await apply(store, await planErasure(store, personalCollections, M, [], [7001]));

    expect(await get(store, 'customers', '7001')).toMatchObject({ email: null, first_name: null, last_lc: null, id: 7001 });
    expect(await get(store, 'shares', '7010')).toMatchObject({
      reward_email_address: null,
      reward_email_lc: null,
      message: null,
      advocate_message: null,
      ip_address: null,
      email_recipients: [BYSTANDER, 'Friend@Example.com'],
    });
    expect(await get(store, 'referral_links', `ADA${M}`)).toMatchObject({ advocate_email: null, advocate_email_lc: null, ip_address: null, clicks: 3 });
    expect(await get(store, 'reminder_emails', '7011')).toMatchObject({ advocate_email_address: null, email_recipients_count: 2 });
    expect(await get(store, 'conversions', '7030')).toMatchObject({
      advocate_email_address: null,
      advocate_email_lc: null,
      friend_email_lc: FRIEND,
      advocate_customer_id: 7001,
    });
    expect(await get(store, 'rewards', '7040')).toMatchObject({ advocate_email_address: null, amount: 500 });
    // Recipients keep their address; the advocate's words are gone from what was sent them.
    expect(await get(store, 'email_outbox', `m1-${M}`)).toMatchObject({ to: BYSTANDER, subject: null, text: null });
    expect(await get(store, 'purchases', '7020')).toMatchObject({ email_address: 'FRIEND@example.com ', ip_address: '10.0.0.2' });
  });

  it('plans nothing for paths already null, and nothing at all once applied', async () => {
    const store = await storeWith(referral(M));
    const first = await planErasure(store, personalCollections, M, [FRIEND], []);
    expect(first.email_outbox).toEqual({ [`m2-${M}`]: ['to', 'to_lc', 'subject', 'text', 'failure.reply'] });
    await apply(store, first);
    expect(await planErasure(store, personalCollections, M, [FRIEND], [])).toEqual({});
  });

  it('walks every document of the merchant, past one page', async () => {
    const many = Array.from({ length: 1205 }, (_, i) => customer(100 + i, M, i === 1204 ? FRIEND : `c${i}@example.com`, 'C', `N${i}`));
    const store = await storeWith({ customers: many });
    expect(await planErasure(store, personalCollections, M, [FRIEND], [100])).toEqual({
      customers: {
        '100': ['email', 'email_lc', 'first_name', 'last_name', 'first_lc', 'last_lc'],
        '1304': ['email', 'email_lc', 'first_name', 'last_name', 'first_lc', 'last_lc'],
      },
    });
  });

  it('leaves a document of another merchant that a plan names (the event is one merchant’s)', async () => {
    const store = await storeWith(referral(OTHER));
    await apply(store, { customers: { '8002': ['email'] } });
    expect(await get(store, 'customers', '8002')).toMatchObject({ email: FRIEND });
  });
});

describe('deep erasure of free-form JSON', () => {
  const deliveries: CollectionDef = { name: 'deliveries', indexes: [['merchant_id']], personal: { deep: ['payload'] } };
  const payload = (email: string) => ({
    event: 'purchase',
    customer: { id: 2, email, first_name: 'Fred', name: 'Fred Friend' },
    products: [{ name: 'Tea', price: 300 }],
    ip_address: '10.0.0.2',
    user_agent: 'Mozilla/5.0',
    messages: [{ to: email, subject: 'Hi', text: 'Hello Fred' }],
    email_recipients: ['x@example.com', email],
  });

  it('nulls every string under a personal key when the payload names an erased address, and leaves other payloads', async () => {
    const store = new MemoryReadStore();
    const collection = store.collection(deliveries);
    await collection.put({ _id: 'd1', merchant_id: M, payload: payload('Friend@Example.com'), created_at: AT }, 0n);
    await collection.put({ _id: 'd2', merchant_id: M, payload: payload(BYSTANDER), created_at: AT }, 0n);
    const plan = await planErasure(store, [deliveries], M, [FRIEND], []);
    expect(Object.keys(plan.deliveries)).toEqual(['d1']);
    await apply(store, plan, [deliveries]);

    expect((await collection.get('d1'))!.payload).toEqual({
      event: 'purchase',
      customer: { id: 2, email: null, first_name: null, name: null },
      products: [{ name: 'Tea', price: 300 }],
      ip_address: null,
      user_agent: null,
      messages: [{ to: null, subject: null, text: null }],
      email_recipients: [null, null],
    });
    expect((await collection.get('d2'))!.payload).toEqual(payload(BYSTANDER));
  });
});

describe('withNulls', () => {
  it('copies the containers on the way and shares the rest', () => {
    const doc = { _id: 'a', created_at: AT, list: ['x', 'y'], nested: { a: 'x', b: { c: 1 } }, other: { z: 1 } };
    const out = withNulls(doc, ['list.1', 'nested.a', 'gone.deep']);
    expect(out).toEqual({ _id: 'a', created_at: AT, list: ['x', null], nested: { a: null, b: { c: 1 } }, other: { z: 1 } });
    expect(doc.list).toEqual(['x', 'y']);
    expect(doc.nested.a).toBe('x');
    expect(out.other).toBe(doc.other);
  });
});
