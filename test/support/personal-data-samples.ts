/** Events of every type that holds personal data, with what is personal in each and whose (src/operations/personal-data.spec.ts, erased-events.spec.ts). */
import { customerSubject, emailSubject, Path, Subject } from '../../src/platform/personal-data/index.js';
import { webhookPayload, WebhookSourceEvent } from '../../src/webhooks/domain/webhook-kinds.js';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.js';

export const M = 1;
const at = '2026-05-01T10:00:00.000Z';
const ADA = 'ada.lovelace@example.com';
const BOB = 'bob.friend@example.com';
const CY = 'cy.friend@example.com';

/** One person erased: what of theirs reads null then, and what (of others', or not personal) stays. */
export interface Erasure {
  erase: Subject[];
  gone: Path[];
  kept: Path[];
}

export interface Sample {
  type: string;
  /** What the sample shows, for the test name. */
  what: string;
  data: Record<string, unknown>;
  /** The personal strings of `data`: none may be stored in clear. */
  personal: string[];
  erasures: Erasure[];
}

const facts = {
  rewardId: 21,
  merchantId: M,
  conversionId: 31,
  purchaseId: 41,
  widgetId: 2,
  advocateCustomerId: 3,
  advocateEmailAddress: ADA,
  rewardType: 'fixed_cash',
  amount: 10,
};
const advocateErased: Erasure = { erase: customerSubject(M, 3), gone: [['advocateEmailAddress']], kept: [['rewardId'], ['amount']] };

const payloadOf = (event: WebhookSourceEvent) =>
  webhookPayload(
    {
      id: 'evt-1',
      ...event,
      metadata: { merchantId: M },
      streamName: 's',
      revision: 0,
      position: 5n,
      createdAt: new Date(at),
    } as RecordedEvent<WebhookSourceEvent>,
    { canSeeRecipients: true },
  );
const delivery = (kind: string, payload: unknown) => ({
  deliveryId: 51,
  endpointId: 4,
  merchantId: M,
  kind,
  eventId: 'evt-1',
  payload,
  scheduledAt: at,
  nextAttemptAt: at,
});

const conversion = {
  conversionId: 31,
  merchantId: M,
  purchaseId: 41,
  widgetId: 2,
  referralCode: 'shr12345',
  couponCode: null,
  channel: 'email' as const,
  source: { type: 'share' as const, shareId: 11 },
  advocateCustomerId: 3,
  advocateEmailAddress: ADA,
  friendCustomerId: 9,
  friendEmailAddress: BOB,
  createdAt: at,
};
const share = {
  shareId: 11,
  merchantId: M,
  widgetId: 2,
  customerId: 3,
  referralCode: 'shr12345',
  channel: 'email' as const,
  message: 'Bob, this shop is great',
  rewardEmailAddress: ADA,
  emailRecipients: [BOB, CY],
  newsletterOptIn: false,
  sendReminder: true,
  ipAddress: '203.0.113.9',
  linkParameters: { utm_source: 'newsletter' },
  origin: 'merchant' as const,
  createdAt: at,
};
const messageTo = (to: string, messageId: string) => ({
  messageId,
  to,
  subject: 'Augusta Lovelace sent you 10% off',
  text: `Hello ${to}: Bob, this shop is great. https://shop.example/r/shr12345`,
});
const messagePaths = (i: number): Path[] => [
  ['messages', i, 'to'],
  ['messages', i, 'subject'],
  ['messages', i, 'text'],
];

export const SAMPLES: Sample[] = [
  {
    type: 'UserDataDeletionRequested',
    what: "an erasure request's addresses and account ids, under the job's own key",
    data: {
      jobId: 8,
      merchantId: M,
      emailAddresses: ['erin.one@example.com'],
      customerIds: [3],
      accountIds: ['acct-erin'],
      notificationEmail: 'dpo@shop.example',
      emailAddressesCount: 1,
      accountIdsCount: 1,
      requestedAt: at,
    },
    personal: ['erin.one@example.com', 'acct-erin', 'dpo@shop.example'],
    erasures: [
      {
        erase: [{ kind: 'job', jobId: 8 }],
        gone: [['emailAddresses', 0], ['accountIds', 0], ['notificationEmail']],
        kept: [['customerIds'], ['emailAddressesCount']],
      },
    ],
  },
  {
    type: 'UserDataDeletionCompleted',
    what: 'the confirmation to the notification address',
    data: {
      jobId: 8,
      merchantId: M,
      customerIds: [3],
      emailAddressesCount: 1,
      keysDestroyed: 2,
      documentsScrubbed: 4,
      messages: [{ messageId: 'user-data-deletion-8', to: 'dpo@shop.example', subject: 'Personal data deletion 8 completed', text: 'Done.' }],
      queuedFor: 'outbox',
      completedAt: at,
    },
    personal: ['dpo@shop.example', 'Personal data deletion 8 completed'],
    erasures: [{ erase: emailSubject(M, 'dpo@shop.example'), gone: messagePaths(0), kept: [['customerIds'], ['messages', 0, 'messageId']] }],
  },
  {
    type: 'CustomerRegistered',
    what: 'a customer',
    data: {
      customerId: 3,
      merchantId: M,
      accountId: 'acct-778',
      registeredAt: at,
      email: ADA,
      firstName: 'Augusta',
      lastName: 'Lovelace',
      stripeCustomerId: 'cus_Q8wErTy12',
      chargebeeCustomerId: 'cb_AzByCx98',
    },
    personal: [ADA, 'Augusta', 'Lovelace', 'cus_Q8wErTy12', 'cb_AzByCx98'],
    erasures: [
      { erase: customerSubject(M, 3), gone: [['email'], ['firstName'], ['lastName'], ['stripeCustomerId'], ['chargebeeCustomerId']], kept: [['accountId']] },
      // The address erased as the service compares addresses: trimmed, any case.
      { erase: emailSubject(M, ' Ada.Lovelace@Example.com'), gone: [['email'], ['firstName'], ['chargebeeCustomerId']], kept: [['customerId']] },
    ],
  },
  {
    type: 'CustomerUpdated',
    what: 'a change of name, without an address',
    data: { customerId: 3, merchantId: M, changes: { firstName: 'Augustina', lastName: 'King-Noel' }, updatedAt: at },
    personal: ['Augustina', 'King-Noel'],
    erasures: [
      {
        erase: customerSubject(M, 3),
        gone: [
          ['changes', 'firstName'],
          ['changes', 'lastName'],
        ],
        kept: [['updatedAt']],
      },
    ],
  },
  {
    type: 'CustomerUpdated',
    what: 'a change of address',
    data: { customerId: 3, merchantId: M, changes: { email: 'ada.king@example.com', stripeCustomerId: null }, updatedAt: at },
    personal: ['ada.king@example.com'],
    erasures: [{ erase: emailSubject(M, 'ada.king@example.com'), gone: [['changes', 'email']], kept: [['changes', 'stripeCustomerId']] }],
  },
  {
    type: 'PurchaseRecorded',
    what: 'a purchase',
    data: {
      purchaseId: 41,
      merchantId: M,
      orderId: 'ord-5531',
      paymentAmount: 120,
      newCustomer: 'yes',
      couponCode: 'SAVE10',
      referralCode: 'shr12345',
      emailAddress: BOB,
      ipAddress: '198.51.100.23',
      referrer: 'https://mail.example.net/inbox?user=bobfriend',
      customerId: 9,
      widgetId: 2,
      products: [{ sku: 'sku-1', quantity: 1, price: 120 }],
      createdAt: at,
    },
    personal: [BOB, '198.51.100.23', 'https://mail.example.net/inbox?user=bobfriend'],
    erasures: [
      { erase: customerSubject(M, 9), gone: [['emailAddress'], ['ipAddress'], ['referrer']], kept: [['orderId'], ['referralCode'], ['products']] },
      { erase: emailSubject(M, BOB), gone: [['emailAddress'], ['referrer']], kept: [['paymentAmount']] },
    ],
  },
  {
    type: 'ConversionAttributed',
    what: 'a conversion naming advocate and friend',
    data: conversion,
    personal: [ADA, BOB],
    erasures: [
      { erase: emailSubject(M, BOB), gone: [['friendEmailAddress']], kept: [['advocateEmailAddress'], ['referralCode']] },
      { erase: customerSubject(M, 3), gone: [['advocateEmailAddress']], kept: [['friendEmailAddress'], ['source']] },
    ],
  },
  { type: 'RewardPending', what: 'a pending reward', data: { ...facts, createdAt: at }, personal: [ADA], erasures: [advocateErased] },
  {
    type: 'RewardApproved',
    what: 'an approved reward',
    data: { ...facts, evaluatedAt: at },
    personal: [ADA],
    erasures: [{ erase: emailSubject(M, ADA), gone: [['advocateEmailAddress']], kept: [['evaluatedAt']] }],
  },
  {
    type: 'RewardRejected',
    what: "a reward rejected with the merchant's note",
    data: { ...facts, reasons: ['same_email'], note: 'Ada already had one in May', evaluatedAt: at },
    personal: [ADA, 'Ada already had one in May'],
    erasures: [{ ...advocateErased, gone: [['advocateEmailAddress'], ['note']], kept: [['reasons']] }],
  },
  {
    type: 'RewardManuallyApproved',
    what: "a reward approved by hand, with the admin's reason",
    data: { ...facts, by: 'support-desk', reason: 'Ada is a loyal customer', decidedAt: at },
    personal: [ADA, 'Ada is a loyal customer'],
    erasures: [{ ...advocateErased, gone: [['advocateEmailAddress'], ['reason']], kept: [['by']] }],
  },
  {
    type: 'RewardManuallyRejected',
    what: "a reward rejected by hand, with the admin's reason",
    data: { ...facts, by: 'support-desk', reason: 'Ada asked us to', decidedAt: at },
    personal: [ADA, 'Ada asked us to'],
    erasures: [{ ...advocateErased, gone: [['advocateEmailAddress'], ['reason']], kept: [['by']] }],
  },
  {
    type: 'EmailDelivered',
    what: 'a delivered message',
    data: { messageId: 'm-1', merchantId: M, to: BOB, deliveredAt: at, via: 'smtp' },
    personal: [BOB],
    erasures: [{ erase: emailSubject(M, BOB), gone: [['to']], kept: [['messageId'], ['via']] }],
  },
  {
    type: 'EmailSuppressed',
    what: 'a suppressed message',
    data: { messageId: 'm-1', merchantId: M, to: BOB, reason: 'opted_out', suppressedAt: at },
    personal: [BOB],
    erasures: [{ erase: emailSubject(M, BOB), gone: [['to']], kept: [['reason']] }],
  },
  {
    type: 'EmailFailed',
    what: 'a refused message whose reply quotes the address',
    data: { messageId: 'm-1', merchantId: M, to: BOB, replyCode: 550, reply: `550 5.1.1 <${BOB}>: Recipient address rejected`, failedAt: at },
    personal: [BOB, 'Recipient address rejected'],
    erasures: [{ erase: emailSubject(M, BOB), gone: [['to'], ['reply']], kept: [['replyCode']] }],
  },
  {
    type: 'EmailCaptured',
    what: 'a captured address',
    data: {
      emailCaptureId: 5,
      merchantId: M,
      widgetId: 2,
      emailAddress: 'dee.visitor@example.com',
      referralCode: null,
      newsletterOptIn: true,
      ipAddress: '198.51.100.4',
      createdAt: at,
    },
    personal: ['dee.visitor@example.com', '198.51.100.4'],
    erasures: [{ erase: emailSubject(M, 'dee.visitor@example.com'), gone: [['emailAddress'], ['ipAddress']], kept: [['newsletterOptIn']] }],
  },
  {
    type: 'EmailOptedOut',
    what: 'an opt-out',
    data: { merchantId: M, emailAddress: 'dee.visitor@example.com', jobId: null, optedOutAt: at },
    personal: ['dee.visitor@example.com'],
    erasures: [{ erase: emailSubject(M, 'dee.visitor@example.com'), gone: [['emailAddress']], kept: [['optedOutAt']] }],
  },
  {
    type: 'EmailOptOutRemoved',
    what: 'an opt-out removed',
    data: { merchantId: M, emailAddress: 'dee.visitor@example.com', removedAt: at },
    personal: ['dee.visitor@example.com'],
    erasures: [{ erase: emailSubject(M, 'dee.visitor@example.com'), gone: [['emailAddress']], kept: [['removedAt']] }],
  },
  {
    type: 'EmailOptOutJobSubmitted',
    what: "an opt-out job's addresses, each its own subject",
    data: { jobId: 7, merchantId: M, emailAddresses: ['erin.one@example.com', 'fred.two@example.com'], submittedAt: at },
    personal: ['erin.one@example.com', 'fred.two@example.com'],
    erasures: [{ erase: emailSubject(M, 'erin.one@example.com'), gone: [['emailAddresses', 0]], kept: [['emailAddresses', 1], ['jobId']] }],
  },
  {
    type: 'ReferralLinkCreated',
    what: "an advocate's personal link",
    data: {
      code: 'ada12345',
      merchantId: M,
      widgetId: 2,
      type: 'email_personal_url',
      advocateCustomerId: 3,
      advocateEmail: ADA,
      shareId: null,
      reminderEmailId: null,
      linkParameters: { utm_source: 'newsletter' },
      ipAddress: '203.0.113.9',
      createdAt: at,
    },
    personal: [ADA, '203.0.113.9'],
    erasures: [
      { erase: customerSubject(M, 3), gone: [['advocateEmail'], ['ipAddress']], kept: [['code'], ['linkParameters']] },
      { erase: emailSubject(M, ADA), gone: [['advocateEmail'], ['ipAddress']], kept: [['type']] },
    ],
  },
  {
    type: 'ReferralLinkAdvocateEmailChanged',
    what: "a link's new reward address",
    data: { code: 'ada12345', merchantId: M, advocateEmail: 'ada.new@example.com', changedAt: at },
    personal: ['ada.new@example.com'],
    erasures: [{ erase: emailSubject(M, 'ada.new@example.com'), gone: [['advocateEmail']], kept: [['code']] }],
  },
  {
    type: 'ShareCreated',
    what: 'an email share',
    data: share,
    personal: [ADA, BOB, CY, 'Bob, this shop is great', '203.0.113.9'],
    erasures: [
      { erase: emailSubject(M, BOB), gone: [['emailRecipients', 0]], kept: [['emailRecipients', 1], ['rewardEmailAddress'], ['message'], ['ipAddress']] },
      {
        erase: customerSubject(M, 3),
        gone: [['rewardEmailAddress'], ['message'], ['ipAddress']],
        kept: [['emailRecipients'], ['referralCode'], ['linkParameters']],
      },
    ],
  },
  {
    type: 'ShareEmailsSent',
    what: "a share's messages, about each recipient and the advocate",
    data: {
      shareId: 11,
      merchantId: M,
      messages: [messageTo(BOB, 'm-1'), messageTo(CY, 'm-2')],
      skippedOptedOut: ['dan.optedout@example.com'],
      message: 'Bob, this shop is great',
      sentAt: at,
      queuedFor: 'smtp',
      advocateEmailAddress: ADA,
      advocateCustomerId: 3,
    },
    personal: [ADA, BOB, CY, 'dan.optedout@example.com', 'Bob, this shop is great', 'Augusta Lovelace sent you 10% off'],
    erasures: [
      { erase: emailSubject(M, BOB), gone: messagePaths(0), kept: [...messagePaths(1), ['messages', 0, 'messageId'], ['message'], ['advocateEmailAddress']] },
      {
        erase: emailSubject(M, ADA),
        gone: [...messagePaths(0), ...messagePaths(1), ['message'], ['advocateEmailAddress']],
        kept: [['skippedOptedOut'], ['messages', 1, 'messageId'], ['advocateCustomerId']],
      },
      { erase: emailSubject(M, 'dan.optedout@example.com'), gone: [['skippedOptedOut', 0]], kept: [['messages'], ['message']] },
    ],
  },
  {
    type: 'ReminderEmailSent',
    what: 'a reminder',
    data: {
      reminderEmailId: 99,
      shareId: 11,
      merchantId: M,
      widgetId: 2,
      customerId: 3,
      referralCode: 'rem23456',
      advocateEmailAddress: ADA,
      emailRecipientsCount: 2,
      messages: [messageTo(BOB, 'm-9')],
      sentAt: at,
      queuedFor: 'outbox',
    },
    personal: [ADA, BOB, 'Augusta Lovelace sent you 10% off'],
    erasures: [
      { erase: emailSubject(M, BOB), gone: messagePaths(0), kept: [['advocateEmailAddress'], ['referralCode']] },
      { erase: customerSubject(M, 3), gone: [...messagePaths(0), ['advocateEmailAddress']], kept: [['messages', 0, 'messageId']] },
    ],
  },
  {
    type: 'WebhookDeliveryScheduled',
    what: 'a conversion.created payload: erasing the friend erases the advocate in it too',
    data: delivery('conversion.created', payloadOf({ type: 'ConversionAttributed', data: conversion })),
    personal: [ADA, BOB],
    erasures: [
      {
        erase: emailSubject(M, BOB),
        gone: [
          ['payload', 'data', 'friend_email_address'],
          ['payload', 'data', 'advocate_email_address'],
        ],
        kept: [
          ['payload', 'id'],
          ['payload', 'data', 'referral_code'],
          ['payload', 'data', 'friend_customer_id'],
        ],
      },
    ],
  },
  {
    type: 'WebhookDeliveryScheduled',
    what: 'a share.created payload with its recipients',
    data: delivery('share.created', payloadOf({ type: 'ShareCreated', data: share })),
    personal: [ADA, BOB, CY, 'Bob, this shop is great', '203.0.113.9'],
    erasures: [
      {
        erase: emailSubject(M, CY),
        gone: [
          ['payload', 'data', 'email_recipients'],
          ['payload', 'data', 'reward_email_address'],
          ['payload', 'data', 'message'],
          ['payload', 'data', 'ip_address'],
        ],
        kept: [['payload', 'data', 'link_parameters'], ['payload', 'data', 'share_id'], ['kind']],
      },
    ],
  },
];
