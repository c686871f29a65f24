/**
 * The sandbox baseline (spec §1 "Sandbox"): sample data for one sample merchant, made by the
 * same commands the API uses, so it is valid by construction. Ids, codes and times are fixed
 * by SeedSources; README.md lists them.
 */
import { CommandBus } from '@nestjs/cqrs';
import { ReminderScheduler, CreateShareCommand } from '../shares/index.js';
import { OptOutJobProcessor, SubmitOptOutJobCommand } from '../email-opt-outs/index.js';
import { ChangeMerchantCommand, RegisterMerchantCommand, DEFAULT_MERCHANT_SETTINGS } from '../merchants/index.js';
import { ChangeWidgetCommand, CreateWidgetCommand } from '../widgets/index.js';
import { UpsertCustomerCommand } from '../customers/index.js';
import { AssociateCouponCommand, CreateReferralLinkCommand, EnsurePersonalLinkCommand, SetBlacklistedCommand } from '../referral-links/index.js';
import { CreateCouponBankCommand } from '../coupons/index.js';
import { AttributeConversionCommand, RecordPurchaseCommand } from '../sales/index.js';
import { CommandRunner } from '../platform/command-runner.js';
import { emailCaptureDecider, emailCaptureStream } from '../email-captures/index.js';
import { SeedSources } from './seed-sources.js';

/** Documented in README.md; they only ever open the sandbox. */
export const SAMPLE_MERCHANT = {
  name: 'Sandbox Outdoor Co.',
  accessKey: 'ak_sandbox_sample_merchant_0001',
  secretKey: 'sk_sandbox_sample_merchant_secret_0001',
  publishableKey: 'pk_sandbox_sample_merchant_0001',
};

/** Pages on these origins may call the sandbox's browser routes with the sample publishable key (docs/embedding.md). */
export const SAMPLE_ALLOWED_ORIGINS = ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://localhost:8080', 'http://127.0.0.1:8080'];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The sample merchant keeps the default share limits. */
const SAMPLE_SHARE_LIMITS = {
  perCustomer: DEFAULT_MERCHANT_SETTINGS.shareRecipientsPerCustomerPerDay,
  perMerchant: DEFAULT_MERCHANT_SETTINGS.shareRecipientsPerMerchantPerDay,
};

export interface Baseline {
  merchantId: number;
  captureWidgetId: number;
}

export interface SeedContext {
  commands: CommandBus;
  sources: SeedSources;
  reminders: ReminderScheduler;
  optOutJobs: OptOutJobProcessor;
  /** Email captures have no command of their own on the bus: their route runs the decider, as here. */
  runner: CommandRunner;
}

export async function seedBaseline({ commands, sources, reminders, optOutJobs, runner }: SeedContext): Promise<Baseline> {
  const step = (ms = HOUR) => sources.advance(ms);
  const { id: merchantId } = await commands.execute(new RegisterMerchantCommand(SAMPLE_MERCHANT));
  step();

  // Campaigns/widgets: a spring group of two variants (60/40, the first is champion), an
  // email-capture widget, and a variant without a reward.
  const spring = await commands.execute(
    new CreateWidgetCommand({
      merchantId,
      settings: {
        name: 'Spring: give $10, get $10',
        widgetGroupId: 'spring-2026',
        distribution: 60,
        published: true,
        isChampion: true,
        rewardType: 'fixed_cash',
        rewardAmount: 10,
        destinationUrl: 'https://outdoor.example/welcome',
        rewardCriteria: { newCustomersOnly: true, minimumPurchaseAmount: 25, maxRewardsPerAdvocate: 5, maxRewardAmountPerAdvocate: null, capWindowDays: null },
      },
    }),
  );
  step();
  const springB = await commands.execute(
    new CreateWidgetCommand({
      merchantId,
      settings: {
        name: 'Spring: 15% off for friends',
        widgetGroupId: 'spring-2026',
        distribution: 40,
        published: true,
        rewardType: 'percent_discount',
        rewardAmount: 15,
        destinationUrl: 'https://outdoor.example/welcome?variant=b',
      },
    }),
  );
  step();
  const captureWidget = await commands.execute(
    new CreateWidgetCommand({
      merchantId,
      settings: {
        name: 'Newsletter capture',
        objective: 'email_capture',
        published: true,
        destinationUrl: 'https://outdoor.example/news',
      },
    }),
  );
  step();
  const influencer = await commands.execute(
    new CreateWidgetCommand({
      merchantId,
      settings: { name: 'Influencer links', objective: 'influencer', destinationUrl: 'https://outdoor.example/partners' },
    }),
  );
  await commands.execute(new ChangeWidgetCommand({ merchantId, widgetId: influencer, changes: { archived: true } }));
  step();

  // Customers (advocates and friends).
  const people = [
    ['cust-ada', 'ada@outdoor-sample.example', 'Ada', 'Lovelace'],
    ['cust-grace', 'grace@outdoor-sample.example', 'Grace', 'Hopper'],
    ['cust-alan', 'alan@outdoor-sample.example', 'Alan', 'Turing'],
    ['cust-edsger', 'edsger@outdoor-sample.example', 'Edsger', 'Dijkstra'],
    ['cust-barbara', 'barbara@outdoor-sample.example', 'Barbara', 'Liskov'],
  ] as const;
  const customers: Record<string, number> = {};
  for (const [accountId, email, firstName, lastName] of people) {
    const { customerId } = await commands.execute(new UpsertCustomerCommand({ merchantId, accountId, fields: { email, firstName, lastName } }));
    customers[accountId] = customerId;
    step();
  }

  // Referral codes of every type.
  const adaPurl = await commands.execute(
    new EnsurePersonalLinkCommand({
      merchantId,
      widgetId: spring,
      advocate: { customerId: customers['cust-ada'] },
      advocateEmail: 'ada@outdoor-sample.example',
      linkParameters: { utm_source: 'purl' },
      ipAddress: '203.0.113.10',
    }),
  );
  step();
  const graceEmailPurl = await commands.execute(
    new EnsurePersonalLinkCommand({
      merchantId,
      widgetId: springB,
      advocate: { email: 'grace.friend@outdoor-sample.example' },
      advocateEmail: 'grace.friend@outdoor-sample.example',
      ipAddress: '203.0.113.11',
    }),
  );
  step();
  await commands.execute(
    new CreateReferralLinkCommand({
      merchantId,
      widgetId: spring,
      linkType: 'vanity_personal_url',
      code: 'alan-outdoors',
      advocateCustomerId: customers['cust-alan'],
      advocateEmail: 'alan@outdoor-sample.example',
      shareId: null,
      reminderEmailId: null,
      linkParameters: null,
      ipAddress: null,
    }),
  );
  step();
  const blacklisted = await commands.execute(
    new EnsurePersonalLinkCommand({
      merchantId,
      widgetId: spring,
      advocate: { customerId: customers['cust-edsger'] },
      advocateEmail: 'edsger@outdoor-sample.example',
      ipAddress: '203.0.113.12',
    }),
  );
  await commands.execute(new SetBlacklistedCommand({ merchantId, code: blacklisted.code, blacklisted: true }));
  step();

  // Coupon codes: a bank, one code associated with Ada's link.
  const bank = await commands.execute(
    new CreateCouponBankCommand({ merchantId, name: 'Spring friends', codes: ['SPRING-FRIEND-01', 'SPRING-FRIEND-02', 'SPRING-FRIEND-03'] }),
  );
  await commands.execute(new AssociateCouponCommand({ merchantId, referralCode: adaPurl.code, bankId: bank, couponCode: 'SPRING-FRIEND-01' }));
  step();

  // Email opt-outs and a completed opt-out job (before the shares, so one recipient is skipped).
  await commands.execute(new SubmitOptOutJobCommand({ merchantId, emailAddresses: ['no-mail@outdoor-sample.example', 'unsubscribed@outdoor-sample.example'] }));
  await optOutJobs.idle();
  step();

  // Shares (with their own codes), one with a reminder that goes out three days later.
  await commands.execute(
    new CreateShareCommand({
      merchantId,
      widgetId: spring,
      customerId: customers['cust-ada'],
      rewardEmailAddress: 'ada@outdoor-sample.example',
      emailRecipients: ['friend.one@outdoor-sample.example', 'no-mail@outdoor-sample.example'],
      message: 'These tents are great, have $10 on me.',
      newsletterOptIn: true,
      sendReminder: true,
      ipAddress: '203.0.113.10',
      linkParameters: null,
      origin: 'merchant',
      limits: SAMPLE_SHARE_LIMITS,
    }),
  );
  step();
  await commands.execute(
    new CreateShareCommand({
      merchantId,
      widgetId: springB,
      customerId: customers['cust-grace'],
      rewardEmailAddress: 'grace@outdoor-sample.example',
      emailRecipients: ['friend.two@outdoor-sample.example'],
      message: null,
      newsletterOptIn: false,
      sendReminder: false,
      ipAddress: '203.0.113.13',
      linkParameters: { campaign: 'spring' },
      origin: 'merchant',
      limits: SAMPLE_SHARE_LIMITS,
    }),
  );
  step(3 * DAY);
  await reminders.tick();
  step();

  // Purchases: an approved conversion, a rejected one (not a new customer), a coupon-code
  // attribution, an explicit conversion, a purchase whose code is blacklisted, and a
  // rejected reward (the spring widget rewards new customers only).
  await commands.execute(
    new RecordPurchaseCommand({
      merchantId,
      orderId: 'SAMPLE-ORDER-1001',
      paymentAmount: 189.0,
      newCustomer: 'yes',
      couponCode: null,
      referralCode: adaPurl.code,
      emailAddress: 'friend.one@outdoor-sample.example',
      ipAddress: '198.51.100.21',
      referrer: 'https://blog.outdoor-sample.example/tents',
      customerId: customers['cust-barbara'],
      widgetId: null,
      products: [{ sku: 'TENT-2P', quantity: 1, price: 189.0 }],
    }),
  );
  step();
  await commands.execute(
    new RecordPurchaseCommand({
      merchantId,
      orderId: 'SAMPLE-ORDER-1002',
      paymentAmount: 42.5,
      newCustomer: 'no',
      couponCode: null,
      referralCode: graceEmailPurl.code,
      emailAddress: 'returning@outdoor-sample.example',
      ipAddress: '198.51.100.22',
      referrer: null,
      customerId: null,
      widgetId: null,
      products: [{ sku: 'MUG-ENAMEL', quantity: 2, price: 21.25 }],
    }),
  );
  step();
  await commands.execute(
    new RecordPurchaseCommand({
      merchantId,
      orderId: 'SAMPLE-ORDER-1003',
      paymentAmount: 75,
      newCustomer: 'yes',
      couponCode: 'SPRING-FRIEND-01',
      referralCode: null,
      emailAddress: 'coupon.friend@outdoor-sample.example',
      ipAddress: '198.51.100.23',
      referrer: null,
      customerId: null,
      widgetId: null,
      products: [{ sku: 'LANTERN', quantity: 1, price: 75 }],
    }),
  );
  step();
  const plain = await commands.execute(
    new RecordPurchaseCommand({
      merchantId,
      orderId: 'SAMPLE-ORDER-1004',
      paymentAmount: 60,
      newCustomer: 'yes',
      couponCode: null,
      referralCode: null,
      emailAddress: 'late.friend@outdoor-sample.example',
      ipAddress: '198.51.100.24',
      referrer: null,
      customerId: null,
      widgetId: null,
      products: [],
    }),
  );
  await commands.execute(new AttributeConversionCommand({ merchantId, purchaseId: plain, referralCode: 'alan-outdoors', couponCode: null }));
  step();
  await commands.execute(
    new RecordPurchaseCommand({
      merchantId,
      orderId: 'SAMPLE-ORDER-1005',
      paymentAmount: 30,
      newCustomer: 'unknown',
      couponCode: null,
      referralCode: blacklisted.code,
      emailAddress: null,
      ipAddress: null,
      referrer: null,
      customerId: null,
      widgetId: null,
      products: [],
    }),
  );
  step();
  await commands.execute(
    new RecordPurchaseCommand({
      merchantId,
      orderId: 'SAMPLE-ORDER-1006',
      paymentAmount: 99,
      newCustomer: 'no',
      couponCode: null,
      referralCode: adaPurl.code,
      emailAddress: 'repeat.buyer@outdoor-sample.example',
      ipAddress: '198.51.100.26',
      referrer: null,
      customerId: null,
      widgetId: null,
      products: [{ sku: 'STOVE', quantity: 1, price: 99 }],
    }),
  );
  step();

  // Email captures on the capture widget: one from a newsletter sign-up, one that came through Ada's link.
  // Last, so that the ids of everything above stay those README.md lists.
  const captures = [
    { emailAddress: 'newsletter.fan@outdoor-sample.example', referralCode: null, newsletterOptIn: true, ipAddress: '198.51.100.31' },
    { emailAddress: 'friend.three@outdoor-sample.example', referralCode: adaPurl.code, newsletterOptIn: false, ipAddress: null },
  ];
  for (const capture of captures) {
    const emailCaptureId = sources.ids.next();
    await runner.run(
      emailCaptureStream(emailCaptureId),
      emailCaptureDecider,
      { type: 'CaptureEmail', emailCaptureId, merchantId, widgetId: captureWidget, ...capture, now: sources.clock.now() },
      { metadata: { merchantId } },
    );
    step();
  }
  // After everything else, so that the audit positions README.md lists stay as they were.
  await commands.execute(new ChangeMerchantCommand({ merchantId, settings: {}, allowedOrigins: SAMPLE_ALLOWED_ORIGINS }));
  return { merchantId, captureWidgetId: captureWidget };
}
