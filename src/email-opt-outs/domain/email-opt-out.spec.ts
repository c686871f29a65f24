import { NotFoundError } from '../../platform/errors.js';
import { SqliteEventStore } from '../../platform/event-store/sqlite-event-store.js';
import { PersonalDataEventStore, SqliteKeyStore } from '../../platform/personal-data/index.js';
import { given } from '../../../test/support/decider-spec.js';
import { optOutDecider, optOutJobDecider, optOutStream } from './email-opt-out.js';

const now = new Date('2026-05-01T00:00:00.000Z');
const at = now.toISOString();

describe('opt-out deciders', () => {
  it('opts an address out once, normalised', () => {
    const optedOut = { type: 'EmailOptedOut' as const, data: { merchantId: 1, emailAddress: 'ann@example.com', jobId: 4, optedOutAt: at } };
    given(optOutDecider, []).when({ type: 'OptOut', merchantId: 1, emailAddress: ' Ann@Example.com ', jobId: 4, now }).then([optedOut]);
    given(optOutDecider, [optedOut]).when({ type: 'OptOut', merchantId: 1, emailAddress: 'ann@example.com', jobId: 5, now }).then([]);
  });

  it("names an address's stream after its keyed hash, never the address", async () => {
    const layer = await PersonalDataEventStore.open(new SqliteEventStore({ path: ':memory:' }), new SqliteKeyStore(':memory:'), {});
    try {
      const stream = optOutStream(1, layer.emailKey(1, ' ANN@example.com'));
      expect(stream).toBe(optOutStream(1, layer.emailKey(1, 'ann@example.com')));
      expect(stream).not.toBe(optOutStream(2, layer.emailKey(2, 'ann@example.com')));
      expect(stream).toMatch(/^email-opt-out-1-k[A-Za-z0-9_-]{43}$/);
      expect(stream).not.toContain(Buffer.from('ann@example.com').toString('base64url'));
    } finally {
      await layer.close();
    }
  });

  it('removes only an existing opt-out', () => {
    given(optOutDecider, []).when({ type: 'RemoveOptOut', merchantId: 1, emailAddress: 'x@example.com', now }).thenThrows(NotFoundError);
  });

  it('submits a job with unique normalised addresses and completes it once', () => {
    const submitted = { type: 'EmailOptOutJobSubmitted' as const, data: { jobId: 4, merchantId: 1, emailAddresses: ['a@example.com'], submittedAt: at } };
    given(optOutJobDecider, [])
      .when({ type: 'SubmitOptOutJob', jobId: 4, merchantId: 1, emailAddresses: ['A@example.com', 'a@example.com'], now })
      .then([submitted]);
    const completed = {
      type: 'EmailOptOutJobCompleted' as const,
      data: { jobId: 4, merchantId: 1, optedOutCount: 1, alreadyOptedOutCount: 0, completedAt: at },
    };
    given(optOutJobDecider, [submitted])
      .when({ type: 'CompleteOptOutJob', jobId: 4, merchantId: 1, optedOutCount: 1, alreadyOptedOutCount: 0, now })
      .then([completed]);
    given(optOutJobDecider, [submitted, completed])
      .when({ type: 'CompleteOptOutJob', jobId: 4, merchantId: 1, optedOutCount: 1, alreadyOptedOutCount: 0, now })
      .then([]);
  });
});
