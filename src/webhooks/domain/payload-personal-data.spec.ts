import type { RecordedEvent } from '../../platform/event-store/event-store.js';
import { customerSubject, emailSubject, PersonalValue, Subject } from '../../platform/personal-data/personal-fields.js';
import { payloadPersonalValues } from './payload-personal-data.js';
import { WebhookSourceEvent, webhookPayload } from './webhook-kinds.js';

const at = new Date('2026-05-01T08:00:00.000Z');
const payloadOf = (event: WebhookSourceEvent, canSeeRecipients = true) =>
  webhookPayload(
    { id: 'evt-1', ...event, metadata: { merchantId: 1 }, streamName: 's', revision: 0, position: 5n, createdAt: at } as RecordedEvent<WebhookSourceEvent>,
    { canSeeRecipients },
  );

const facts = {
  rewardId: 21,
  merchantId: 1,
  conversionId: 31,
  purchaseId: 41,
  widgetId: 2,
  advocateCustomerId: 3,
  advocateEmailAddress: 'Ada@Example.com',
  rewardType: 'fixed_cash',
  amount: 10,
};

const key = (s: Subject) => JSON.stringify(s);
/** The paths found, and the subjects (one set, every value has them all). */
function summary(values: PersonalValue[]) {
  const subjects = new Set(values.flatMap((v) => v.subjects.map(key)));
  for (const v of values) expect(new Set(v.subjects.map(key))).toEqual(subjects);
  return { paths: values.map((v) => v.path.join('.')).sort(), subjects: [...subjects].sort() };
}
const subjectsOf = (...lists: Subject[][]) => lists.flat().map(key).sort();

describe('the personal values of a webhook payload', () => {
  it('seals what a share.created payload says of the advocate and the recipients, under all of them', () => {
    const payload = payloadOf({
      type: 'ShareCreated',
      data: {
        shareId: 11,
        merchantId: 1,
        widgetId: 2,
        customerId: 3,
        referralCode: 'abc12345',
        channel: 'email',
        message: 'Try it, Bob',
        rewardEmailAddress: 'ada@example.com',
        emailRecipients: ['bob@example.com', 'cy@example.com'],
        newsletterOptIn: false,
        sendReminder: true,
        ipAddress: '203.0.113.9',
        linkParameters: { utm_source: 'mail' },
        createdAt: at.toISOString(),
      },
    });
    expect(summary(payloadPersonalValues(1, payload, ['payload']))).toEqual({
      paths: ['payload.data.email_recipients', 'payload.data.ip_address', 'payload.data.message', 'payload.data.reward_email_address'],
      subjects: subjectsOf(emailSubject(1, 'ada@example.com'), emailSubject(1, 'bob@example.com'), emailSubject(1, 'cy@example.com'), customerSubject(1, 3)),
    });
  });

  it('names no recipient of a share.created payload that leaves them out', () => {
    const share = payloadOf(
      {
        type: 'ShareCreated',
        data: {
          shareId: 11,
          merchantId: 1,
          widgetId: 2,
          customerId: null,
          referralCode: 'abc12345',
          channel: 'email',
          message: null,
          rewardEmailAddress: 'ada@example.com',
          emailRecipients: ['bob@example.com'],
          newsletterOptIn: false,
          sendReminder: false,
          ipAddress: null,
          linkParameters: null,
          createdAt: at.toISOString(),
        },
      },
      false,
    );
    // A null message or IP is nothing to seal; the customer id null names nobody.
    expect(summary(payloadPersonalValues(1, share))).toEqual({
      paths: ['data.reward_email_address'],
      subjects: subjectsOf(emailSubject(1, 'ada@example.com')),
    });
  });

  it('seals both addresses of a conversion.created payload under advocate and friend: erasing either erases both', () => {
    const payload = payloadOf({
      type: 'ConversionAttributed',
      data: {
        conversionId: 31,
        merchantId: 1,
        purchaseId: 41,
        widgetId: 2,
        referralCode: 'abc12345',
        couponCode: 'SAVE10',
        channel: 'email',
        source: { type: 'share', shareId: 11 },
        advocateCustomerId: 3,
        advocateEmailAddress: 'ada@example.com',
        friendCustomerId: 9,
        friendEmailAddress: 'bob@example.com',
        createdAt: at.toISOString(),
      },
    });
    expect(summary(payloadPersonalValues(1, payload))).toEqual({
      paths: ['data.advocate_email_address', 'data.friend_email_address'],
      subjects: subjectsOf(emailSubject(1, 'ada@example.com'), customerSubject(1, 3), emailSubject(1, 'bob@example.com'), customerSubject(1, 9)),
    });
  });

  it("seals a reward payload's address and the decider's words, not who decided nor the reason codes", () => {
    const rejected = payloadOf({
      type: 'RewardManuallyRejected',
      data: { ...facts, by: 'admin@shop', reason: 'Ada asked us to', decidedAt: at.toISOString() },
    });
    // The address is normalised for its subject: Ada@Example.com and ada@example.com are one person.
    expect(summary(payloadPersonalValues(1, rejected))).toEqual({
      paths: ['data.advocate_email_address', 'data.reason'],
      subjects: subjectsOf(emailSubject(1, 'ada@example.com'), customerSubject(1, 3)),
    });
    const approved = payloadOf({ type: 'RewardApproved', data: { ...facts, evaluatedAt: at.toISOString() } });
    expect(summary(payloadPersonalValues(1, approved)).paths).toEqual(['data.advocate_email_address']);
  });

  it('seals an email.captured and an email.opted_out payload under the address', () => {
    const captured = payloadOf({
      type: 'EmailCaptured',
      data: {
        emailCaptureId: 5,
        merchantId: 1,
        widgetId: 2,
        emailAddress: 'dee@example.com',
        referralCode: null,
        newsletterOptIn: true,
        ipAddress: '198.51.100.4',
        createdAt: at.toISOString(),
      },
    });
    expect(summary(payloadPersonalValues(1, captured))).toEqual({
      paths: ['data.email_address', 'data.ip_address'],
      subjects: subjectsOf(emailSubject(1, 'dee@example.com')),
    });
    const optedOut = payloadOf({ type: 'EmailOptedOut', data: { merchantId: 1, emailAddress: 'dee@example.com', jobId: 7, optedOutAt: at.toISOString() } });
    expect(summary(payloadPersonalValues(1, optedOut))).toEqual({ paths: ['data.email_address'], subjects: subjectsOf(emailSubject(1, 'dee@example.com')) });
  });

  it('finds personal keys at any depth, in lists too, under the merchant given', () => {
    const payload = {
      data: {
        people: [
          { email: 'eve@example.com', first_name: 'Eve', user_agent: 'Mozilla/5.0' },
          { customer_id: 12, referrer: 'https://mail.example/?u=eve' },
        ],
        nested: { deeper: { to: ['fay@example.com'], subject: 'Hi', text: 'Hello Fay' } },
        email_recipients_count: 2,
        job_id: 7,
      },
    };
    expect(summary(payloadPersonalValues(4, payload))).toEqual({
      paths: [
        'data.nested.deeper.subject',
        'data.nested.deeper.text',
        'data.nested.deeper.to',
        'data.people.0.email',
        'data.people.0.first_name',
        'data.people.0.user_agent',
        'data.people.1.referrer',
      ],
      subjects: subjectsOf(emailSubject(4, 'eve@example.com'), emailSubject(4, 'fay@example.com'), customerSubject(4, 12)),
    });
  });

  it('seals nothing when the payload names nobody to seal it under', () => {
    expect(payloadPersonalValues(1, { data: { message: 'hello', ip_address: '203.0.113.9', customer_id: null, email_address: '' } })).toEqual([]);
    expect(payloadPersonalValues(1, null)).toEqual([]);
    expect(payloadPersonalValues(1, { data: { share_id: 1, referral_code: 'abc' } })).toEqual([]);
  });
});
