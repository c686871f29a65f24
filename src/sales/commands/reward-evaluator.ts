/**
 * Evaluates the reward of each conversion once (spec §3): as part of the plan that records the
 * conversion (one commit on the embedded store), and at start-up for any conversion left
 * unevaluated (a crash between the steps on a store without multi-stream commits). A reward is
 * identified by its conversion's id, and its stream is named after the conversion, so a
 * second evaluation changes nothing.
 */
import { IntegrationSettingsQueries } from '../../integrations/index.js';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner, type PlanStep } from '../../platform/command-runner.js';
import { docKey } from '../../platform/ids.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { everyDoc } from '../../platform/read-store/read-store.js';
import { PERSONAL_DATA, type PersonalDataEventStore } from '../../platform/personal-data/index.js';
import { ConversionAttributed } from '../domain/conversion-events.js';
import { CustomerQueries } from '../../customers/index.js';
import { ReferralLinkQueries } from '../../referral-links/index.js';
import type { PurchaseRecorded } from '../domain/purchase.js';
import { SalesQueries } from '../read-models/sales-queries.js';
import { type RewardCriteria, WidgetQueries } from '../../widgets/index.js';
import { RewardFacts } from '../domain/reward-events.js';
import { rejectionReasons } from '../domain/evaluation.js';
import { advocateLedgerStream, CapReachedError, ledgerDecider, Outcome, rewardDecider, rewardStream } from '../domain/reward.js';

/** What the reward evaluation needs of a conversion. */
export type EvaluatedConversion = Pick<
  ConversionAttributed['data'],
  'conversionId' | 'merchantId' | 'purchaseId' | 'widgetId' | 'referralCode' | 'advocateCustomerId' | 'advocateEmailAddress'
>;

/** The part of a widget's reward criteria the advocate's ledger enforces. */
type CapCriteria = Pick<RewardCriteria, 'maxRewardsPerAdvocate' | 'maxRewardAmountPerAdvocate' | 'capWindowDays'>;

/** What the reward rules look at in a purchase. */
export type PurchaseFacts = Pick<PurchaseRecorded['data'], 'paymentAmount' | 'newCustomer' | 'ipAddress' | 'customerId' | 'emailAddress'>;

@Injectable()
export class RewardEvaluator implements OnApplicationBootstrap {
  private readonly logger = new Logger('Rewards');
  private readonly pendingListeners: ((rewardId: number) => void)[] = [];

  constructor(
    private readonly runner: CommandRunner,
    private readonly sales: SalesQueries,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly links: ReferralLinkQueries,
    private readonly integrations: IntegrationSettingsQueries,
    private readonly projections: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PERSONAL_DATA) private readonly personalData: PersonalDataEventStore,
  ) {}

  /** Conversions a crash left without a reward decision. */
  onApplicationBootstrap(): void {
    void this.projections.caughtUp.then(async () => {
      for await (const c of everyDoc(this.sales.conversions, { reward_evaluated: false })) {
        await this.evaluateConversion(c.merchant_id, c.id).catch((e: Error) => this.logger.error(`reward of conversion ${c.id}: ${e.message}`));
      }
    });
  }

  onPending(listener: (rewardId: number) => void): void {
    this.pendingListeners.push(listener);
  }

  /** Evaluates a stored conversion's reward (nothing changes if it was evaluated already). */
  async evaluateConversion(merchantId: number, conversionId: number): Promise<void> {
    const c = await this.sales.conversions.get(docKey(conversionId));
    if (!c || c.merchant_id !== merchantId) return;
    const conversion: EvaluatedConversion = {
      conversionId: c.id,
      merchantId: c.merchant_id,
      purchaseId: c.purchase_id,
      widgetId: c.widget_id,
      referralCode: c.referral_code,
      advocateCustomerId: c.advocate_customer_id,
      advocateEmailAddress: c.advocate_email_address,
    };
    const { value: pending } = await this.runner.runTogether((step) => this.decide(step, conversion), { metadata: { merchantId } });
    if (pending !== undefined) this.notifyPending(pending);
  }

  /** Tells the validator about a reward that waits for the merchant's validation callback. */
  notifyPending(rewardId: number): void {
    for (const listener of this.pendingListeners) listener(rewardId);
  }

  /**
   * The reward's decision (and its count in the advocate's ledger) as steps of the caller's
   * plan, so that a conversion, its ledger count and its reward are committed together.
   * `recorded`: the purchase's facts when the plan records the purchase itself (its read model
   * has not seen it yet); otherwise they are read from the read model. Resolves to the reward's
   * id when it is left pending (for notifyPending once committed).
   */
  async decide(step: PlanStep, conversion: EvaluatedConversion, recorded?: PurchaseFacts): Promise<number | undefined> {
    const widget = await this.widgets.byId(conversion.merchantId, conversion.widgetId);
    const settings = widget?.settings;
    // A variant with no reward configured evaluates nothing (spec §3); that is recorded, so that a
    // reward added to the widget later is not given to this conversion at the next start-up.
    if (!settings || settings.rewardType === null || settings.rewardAmount === null) {
      const { conversionId, merchantId, widgetId, purchaseId } = conversion;
      await step(
        rewardStream(conversionId),
        rewardDecider,
        { type: 'DeclineReward', conversionId, merchantId, widgetId, purchaseId, now: this.clock.now() },
        { likelyNew: true },
      );
      return undefined;
    }
    const purchase = recorded ?? (await this.purchaseFacts(conversion.purchaseId));
    if (!purchase) return undefined;
    const friend = purchase.customerId !== null ? await this.customers.byId(conversion.merchantId, purchase.customerId) : null;
    // The link keeps the address it was made with; the customer's may have been added or changed since.
    const advocate = conversion.advocateCustomerId !== null ? await this.customers.byId(conversion.merchantId, conversion.advocateCustomerId) : null;
    const link = await this.links.byCode(conversion.merchantId, conversion.referralCode);
    const facts: RewardFacts = {
      rewardId: conversion.conversionId,
      merchantId: conversion.merchantId,
      conversionId: conversion.conversionId,
      purchaseId: conversion.purchaseId,
      widgetId: conversion.widgetId,
      advocateCustomerId: conversion.advocateCustomerId,
      advocateEmailAddress: conversion.advocateEmailAddress,
      rewardType: settings.rewardType,
      amount: settings.rewardAmount,
    };
    const reasons = rejectionReasons({
      criteria: settings.rewardCriteria,
      fraudChecks: settings.fraudChecks,
      purchase: { paymentAmount: purchase.paymentAmount, newCustomer: purchase.newCustomer, ipAddress: purchase.ipAddress },
      friend: { customerId: purchase.customerId, emails: [purchase.emailAddress, friend?.email].filter((e): e is string => !!e) },
      advocate: {
        customerId: conversion.advocateCustomerId,
        emails: [conversion.advocateEmailAddress, advocate?.email].filter((e): e is string => !!e),
        ipAddress: link?.ip_address ?? null,
      },
    });
    const now = this.clock.now();
    let outcome: Outcome;
    if (reasons.length > 0) outcome = { kind: 'rejected', reasons };
    else if (settings.rewardValidationUrl ?? (await this.integrations.clientApi(conversion.merchantId)).rewardValidationUrl) outcome = { kind: 'pending' };
    else
      outcome = (await this.countInPlan(step, facts, settings.rewardCriteria, true))
        ? { kind: 'approved' }
        : { kind: 'rejected', reasons: ['advocate_reward_cap_reached'] };
    // Named after the conversion: new unless this conversion was evaluated before (then nothing changes).
    const events = await step(rewardStream(conversion.conversionId), rewardDecider, { type: 'EvaluateReward', facts, outcome, now }, { likelyNew: true });
    return events.length > 0 && outcome.kind === 'pending' ? facts.rewardId : undefined;
  }

  private async purchaseFacts(purchaseId: number): Promise<PurchaseFacts | null> {
    const doc = await this.sales.purchases.get(docKey(purchaseId));
    if (!doc) return null;
    return {
      paymentAmount: doc.payment_amount,
      newCustomer: doc.new_customer,
      ipAddress: doc.ip_address,
      customerId: doc.customer_id,
      emailAddress: doc.email_address,
    };
  }

  /** Counts the reward on the advocate's ledger as one step of the caller's plan; false when `enforce` and over the cap. */
  async countInPlan(step: PlanStep, facts: RewardFacts, criteria: CapCriteria, enforce: boolean): Promise<boolean> {
    const rule = { maxCount: criteria.maxRewardsPerAdvocate, maxAmount: criteria.maxRewardAmountPerAdvocate, windowDays: criteria.capWindowDays };
    try {
      await step(
        advocateLedgerStream(facts.merchantId, facts.widgetId, {
          customerId: facts.advocateCustomerId,
          emailKey: facts.advocateEmailAddress ? this.personalData.emailKey(facts.merchantId, facts.advocateEmailAddress) : null,
        }),
        ledgerDecider,
        {
          type: 'CountReward',
          merchantId: facts.merchantId,
          widgetId: facts.widgetId,
          rewardId: facts.rewardId,
          amount: facts.amount,
          rule,
          enforce,
          now: this.clock.now(),
        },
      );
      return true;
    } catch (error) {
      if (error instanceof CapReachedError) return false;
      throw error;
    }
  }
}
