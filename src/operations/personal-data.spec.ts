/**
 * Every event type the service records is either declared in servicePersonalData or listed here as
 * holding no personal data; and each declaration, run through the real personal-data layer over the
 * embedded store, keeps its personal values out of the stored log, gives them back exactly, and
 * loses only the erased person's.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SqliteEventStore } from '../platform/event-store/sqlite-event-store.js';
import { Path, PersonalDataEventStore, SqliteKeyStore } from '../platform/personal-data/index.js';
import { servicePersonalData } from './personal-data.js';
import { SAMPLES } from '../../test/support/personal-data-samples.js';
import { sourceFiles } from '../../test/support/source-files.js';

/** Event types whose every field was checked and found free of personal data (or of any subject to seal it under). */
const NO_PERSONAL_DATA = [
  'AdvocateRewardCounted',
  'AttributionFailed',
  'ClientApiConfigured',
  'CouponAssigned',
  'CouponAssociated',
  'CouponBankCreated',
  'CouponCodesAdded',
  'CustomHeadersConfigured',
  'EmailOptOutJobCompleted',
  'MerchantAllowedOriginsChanged',
  'MerchantPublishableKeyRotated',
  'MerchantRegistered',
  'MerchantRenamed',
  'MerchantSecretKeyRotated',
  'MerchantSettingsChanged',
  'MerchantTokensRevoked',
  // Which read-model documents an erasure nulled, and which fields: ids and field names.
  'PersonalDataErased',
  'PersonalLinkClaimed',
  'ReferralLinkBlacklisted',
  // The friend's IP, user agent and referrer: personal, but nothing in the event names the friend, so
  // there is no subject to seal them under (docs: clicks are kept as recorded).
  'ReferralLinkClicked',
  'ReferralLinkParametersReplaced',
  'ReferralLinkUnblacklisted',
  'ReminderEmailCancelled',
  'ReminderEmailScheduled',
  'RewardNotOffered',
  'RewardValidationAttempted',
  // `reason`: the merchant's callback's words; the event names neither advocate nor recipient.
  'ShareEmailsBlocked',
  'ShareInstructionsAttempted',
  'ShareRecipientsReserved',
  'WebhookDelivered',
  'WebhookDeliveryAbandoned',
  'WebhookDeliveryAttempted',
  'WebhookEndpointChanged',
  'WebhookEndpointCreated',
  'WebhookEndpointDeleted',
  'WebhookReactorCheckpointed',
  'WebhookRedeliveryRequested',
  'WidgetChanged',
  'WidgetCreated',
];

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** `DomainEvent<'Type', …>`, the type name on the same line or the next. */
const EVENT_TYPE = /DomainEvent<\s*'([A-Za-z0-9]+)'/g;

function recordedTypes(): string[] {
  const found = new Set<string>();
  for (const file of sourceFiles(SRC)) for (const match of readFileSync(file, 'utf8').matchAll(EVENT_TYPE)) found.add(match[1]);
  return [...found].sort();
}

describe('which event types hold personal data', () => {
  const types = recordedTypes();
  const declared = Object.keys(servicePersonalData);

  it('finds the event types of src/, declared on one line or over several', () => {
    // CustomerUpdated is declared on one line, CustomerRegistered over several.
    expect(types).toEqual(expect.arrayContaining(['CustomerUpdated', 'CustomerRegistered', 'WebhookReactorCheckpointed']));
    expect(types.length).toBeGreaterThanOrEqual(declared.length + NO_PERSONAL_DATA.length);
  });

  it('has every event type the service records declared in servicePersonalData or listed as holding none', () => {
    expect(types.filter((type) => !declared.includes(type) && !NO_PERSONAL_DATA.includes(type))).toEqual([]);
  });

  it('neither declares nor lists a type twice, nor one the service does not record', () => {
    expect(declared.filter((type) => NO_PERSONAL_DATA.includes(type))).toEqual([]);
    expect([...declared, ...NO_PERSONAL_DATA].filter((type) => !types.includes(type))).toEqual([]);
    expect(new Set(NO_PERSONAL_DATA).size).toBe(NO_PERSONAL_DATA.length);
  });
});

// ---- each declaration through the real layer ------------------------------------------------

function valueAt(data: unknown, path: Path): unknown {
  let value = data;
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value;
}

async function layer(): Promise<PersonalDataEventStore> {
  return PersonalDataEventStore.open(new SqliteEventStore({ path: ':memory:' }), new SqliteKeyStore(':memory:'), servicePersonalData);
}

describe('the personal values of each declared event type, through the personal-data layer', () => {
  it('has a sample of every declared event type', () => {
    expect([...new Set(SAMPLES.map((s) => s.type))].sort()).toEqual(Object.keys(servicePersonalData).sort());
  });

  it("seals an event's values under the same keys together: one ciphertext, each value its place in it", async () => {
    const store = await layer();
    try {
      const data = { purchaseId: 1, merchantId: 1, emailAddress: 'bob.friend@example.com', ipAddress: '203.0.113.9', customerId: null };
      await store.append('together', [{ type: 'PurchaseRecorded', data }], 'no_stream');
      const raw = (await store.inner.readStream('together'))[0].data as Record<string, { $pd: string }>;
      const [email, ip] = [raw.emailAddress.$pd, raw.ipAddress.$pd];
      expect(email.endsWith('#0') || email.endsWith('#1')).toBe(true);
      expect(email.slice(0, -2)).toBe(ip.slice(0, -2));
      expect(email).not.toBe(ip);
      expect((await store.readStream('together'))[0].data).toEqual(data);
    } finally {
      await store.close();
    }
  });

  describe.each(SAMPLES.map((sample) => [`${sample.type}: ${sample.what}`, sample] as const))('%s', (_name, sample) => {
    const stream = `sample-${sample.type}`;

    it('stores none of its personal values in clear, and reads back exactly what was appended', async () => {
      const store = await layer();
      try {
        await store.append(stream, [{ type: sample.type, data: sample.data }], 'no_stream');
        const raw = JSON.stringify((await store.inner.readStream(stream))[0].data);
        expect(raw).toContain('"$pd":1');
        for (const value of sample.personal) {
          expect(JSON.stringify(sample.data)).toContain(value);
          expect(raw).not.toContain(value);
        }
        expect((await store.readStream(stream))[0].data).toEqual(sample.data);
      } finally {
        await store.close();
      }
    });

    it.each(sample.erasures.map((erasure) => [JSON.stringify(erasure.erase), erasure] as const))(
      'after erasing %s, reads null where their values were and keeps the rest',
      async (_subject, erasure) => {
        const store = await layer();
        try {
          await store.append(stream, [{ type: sample.type, data: sample.data }], 'no_stream');
          expect(await store.erase(erasure.erase)).toBe(erasure.erase.length);
          const after = (await store.readStream(stream))[0].data;
          for (const path of erasure.gone) {
            expect([path, valueAt(sample.data, path)]).not.toEqual([path, null]);
            expect([path, valueAt(after, path)]).toEqual([path, null]);
          }
          for (const path of erasure.kept) expect([path, valueAt(after, path)]).toEqual([path, valueAt(sample.data, path)]);
        } finally {
          await store.close();
        }
      },
    );
  });
});

describe('sealing more subjects at once than the layer caches', () => {
  it('seals every value of a batch whose subjects, known and new, outnumber the cache', async () => {
    const store = await PersonalDataEventStore.open(new SqliteEventStore({ path: ':memory:' }), new SqliteKeyStore(':memory:'), servicePersonalData);
    try {
      const events = Array.from({ length: 11_000 }, (_, i) => ({
        type: 'EmailOptedOut',
        data: { merchantId: 1, emailAddress: `many-${i}@example.com`, jobId: null, optedOutAt: '2026-05-01T10:00:00.000Z' },
      }));
      // The first 9,000 subjects are cached; the next batch adds 2,000 new ones, past the cache's 10,000.
      await store.sealData(events.slice(0, 9_000));
      const sealed = (await store.sealData(events)) as { emailAddress: unknown }[];
      expect(sealed.filter((data) => typeof data.emailAddress === 'string')).toEqual([]);
      const opened = await store.openAll(sealed.map((data) => ({ data }) as never));
      expect((opened as { data: { emailAddress: string } }[]).map((e) => e.data.emailAddress)).toEqual(events.map((e) => e.data.emailAddress));
    } finally {
      await store.close();
    }
  });
});
