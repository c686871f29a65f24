/**
 * An erased address stays suppressed: opt-outs are kept under the address's keyed hash, which the
 * events carry, and the suppression check computes it; erasure nulls the address, not the key.
 */
import { SqliteEventStore } from '../../platform/event-store/sqlite-event-store.js';
import { PersonalDataEventStore, SqliteKeyStore } from '../../platform/personal-data/index.js';
import { erasureProjections, type PersonalDataErased, planErasure } from '../../platform/personal-data/read-model-erasure.js';
import { replay } from '../../platform/projections/projection-runner.js';
import { MemoryReadStore } from '../../platform/read-store/memory-read-store.js';
import { optOutDecider, type OptOutCommand } from '../domain/email-opt-out.js';
import { EmailOptedOut } from '../domain/email-opt-out-events.js';
import { OptOutQueries } from './opt-out-queries.js';
import { optOutKey, optOutsCollection, optOutsProjection } from './opt-outs.projection.js';

const M = 7;
const now = new Date('2026-01-01T00:00:00.000Z');

describe('opt-out suppression by key', () => {
  let events: SqliteEventStore;
  let personal: PersonalDataEventStore;
  let store: MemoryReadStore;
  let queries: OptOutQueries;
  const projections = [optOutsProjection, ...erasureProjections([optOutsCollection])];

  beforeEach(async () => {
    events = new SqliteEventStore({ path: ':memory:' });
    personal = await PersonalDataEventStore.open(events, new SqliteKeyStore(':memory:'), {});
    store = new MemoryReadStore();
    queries = new OptOutQueries(store, personal);
  });

  afterEach(async () => {
    await events.close();
  });

  /** Decides `command` on its own (fresh) stream with the address's key, as the handlers do, and records the events. */
  async function run(command: OptOutCommand, withKey = true, state = optOutDecider.initialState()): Promise<void> {
    const keyed = { ...command, ...(withKey && { emailKey: personal.emailKey(command.merchantId, command.emailAddress) }) } as OptOutCommand;
    await personal.append(`s-${Math.random()}`, optOutDecider.decide(keyed, state), 'any');
    await replay(personal, store, projections);
  }

  it('keeps an erased address suppressed, with no address left in the document', async () => {
    await run({ type: 'OptOut', merchantId: M, emailAddress: 'Quiet@Example.com', jobId: null, now });
    await run({ type: 'OptOut', merchantId: M, emailAddress: 'stays@example.com', jobId: null, now });
    expect(await queries.isOptedOut(M, 'quiet@example.com')).toBe(true);

    const scrub = await planErasure(store, [optOutsCollection], M, ['quiet@example.com'], []);
    const erased: PersonalDataErased = { type: 'PersonalDataErased', data: { jobId: 1, merchantId: M, scrub, erasedAt: now.toISOString() } };
    await personal.append('erasure-1', [erased], 'any');
    await replay(personal, store, projections);

    const docs = await store.collection(optOutsCollection).list({ where: { merchant_id: M }, limit: 10 });
    expect(docs.map((d) => d.email_address).sort()).toEqual([null, 'stays@example.com']);
    expect(JSON.stringify(docs)).not.toMatch(/quiet/i);
    expect(await queries.isOptedOut(M, ' QUIET@example.com')).toBe(true);
    expect(await queries.partition(M, ['quiet@example.com', 'stays@example.com', 'new@example.com'])).toEqual({
      allowed: ['new@example.com'],
      optedOut: ['quiet@example.com', 'stays@example.com'],
    });
    expect(await queries.isOptedOut(M + 1, 'quiet@example.com')).toBe(false);
  });

  it('still finds an opt-out recorded before events carried the key, and moves it under the key when the address opts out again', async () => {
    await run({ type: 'OptOut', merchantId: M, emailAddress: 'old@example.com', jobId: null, now }, false);
    expect(await store.collection(optOutsCollection).get(optOutKey(M, 'old@example.com'))).not.toBeNull();
    expect(await queries.isOptedOut(M, 'Old@example.com')).toBe(true);

    await run({ type: 'OptOut', merchantId: M, emailAddress: 'old@example.com', jobId: null, now });
    expect(await store.collection(optOutsCollection).get(optOutKey(M, 'old@example.com'))).toBeNull();
    expect(await store.collection(optOutsCollection).count({ where: { merchant_id: M } })).toBe(1);
    expect(await queries.isOptedOut(M, 'old@example.com')).toBe(true);
  });

  it('lifts an opt-out recorded before the key when it is removed with one', async () => {
    await run({ type: 'OptOut', merchantId: M, emailAddress: 'old@example.com', jobId: null, now }, false);
    const optedOut = { optedOut: true, byJob: null };
    await run({ type: 'RemoveOptOut', merchantId: M, emailAddress: 'old@example.com', now }, true, optedOut);
    expect(await queries.isOptedOut(M, 'old@example.com')).toBe(false);
    expect(await store.collection(optOutsCollection).count({ where: { merchant_id: M } })).toBe(0);
  });

  it('records the key in the events the decider makes', () => {
    const [event] = optOutDecider.decide(
      { type: 'OptOut', merchantId: M, emailAddress: 'a@example.com', jobId: null, now, emailKey: 'k' },
      optOutDecider.initialState(),
    ) as EmailOptedOut[];
    expect(event.data.emailKey).toBe('k');
  });
});
