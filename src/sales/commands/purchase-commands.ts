/** POST /v2/purchases and POST /v2/conversions: record, attribute, then evaluate the reward. */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { BadRequestError, ConflictError } from '../../platform/errors.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { ConversionAttributed } from '../domain/conversion-events.js';
import { RewardEvaluator } from './reward-evaluator.js';
import { type ConversionRequest, type PurchaseCommand, purchaseDecider, purchaseStream } from '../domain/purchase.js';
import { SalesQueries } from '../read-models/sales-queries.js';
import { AttributionResolver } from './attribution.js';

export class RecordPurchaseCommand extends UseCase<UseCaseInput<Extract<PurchaseCommand, { type: 'RecordPurchase' }>, 'purchaseId' | 'attribution'>, number> {}

export class AttributeConversionCommand extends UseCase<ConversionRequest, number> {}

function conversionOf(events: { type: string; data: unknown }[]): ConversionAttributed['data'] | undefined {
  return events.find((e): e is ConversionAttributed => e.type === 'ConversionAttributed')?.data;
}

@CommandHandler(RecordPurchaseCommand)
export class RecordPurchaseHandler implements ICommandHandler<RecordPurchaseCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly attribution: AttributionResolver,
    private readonly rewards: RewardEvaluator,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute({ input: p }: RecordPurchaseCommand): Promise<number> {
    const purchaseId = this.ids.next();
    // The referral code takes precedence over the coupon code (spec §4.2).
    const attribution = await this.attribution.resolve(p.merchantId, { referralCode: p.referralCode, couponCode: p.couponCode }, this.ids.next());
    // The purchase, its conversion, the advocate's ledger count and the reward are decided
    // together and committed at once (where the store can): the reward is evaluated from the
    // purchase's own facts, so nothing waits for the read models in between.
    const command = { type: 'RecordPurchase' as const, purchaseId, ...p, attribution, now: this.clock.now() };
    const { value: pendingReward } = await this.runner.runTogether(
      async (step) => {
        // Order ids are seldom repeated: a repeated one is found by the append and decided again on its history (409).
        const conversion = conversionOf(await step(purchaseStream(p.merchantId, p.orderId), purchaseDecider, command, { likelyNew: true }));
        return conversion ? this.rewards.decide(step, conversion, p) : undefined;
      },
      { metadata: { merchantId: p.merchantId } },
    );
    if (pendingReward !== undefined) this.rewards.notifyPending(pendingReward);
    return purchaseId;
  }
}

@CommandHandler(AttributeConversionCommand)
export class AttributeConversionHandler implements ICommandHandler<AttributeConversionCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly sales: SalesQueries,
    private readonly attribution: AttributionResolver,
    private readonly rewards: RewardEvaluator,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute({ input: c }: AttributeConversionCommand): Promise<number> {
    const purchase = await this.sales.purchase(c.merchantId, c.purchaseId);
    // Already converted is the answer whatever the codes say (the decider checks again, on the stream).
    if (purchase.conversion_id !== null) throw new ConflictError([`purchase ${c.purchaseId} already has conversion ${purchase.conversion_id}`]);
    const { referralCode, couponCode, ...attributed } = c;
    const attribution = await this.attribution.resolve(c.merchantId, { referralCode, couponCode }, this.ids.next());
    if (attribution.kind !== 'converted') {
      const property = referralCode !== null ? 'referral_code' : 'coupon_code';
      const why = attribution.kind === 'failed' ? attribution.reason : 'missing_code';
      throw new BadRequestError([{ property, code: 'invalid', message: `the code attributes the purchase to no advocate (${why})` }]);
    }
    // As for a new purchase: the conversion, the ledger count and the reward in one commit.
    const command = { type: 'AttributeConversion' as const, ...attributed, attribution, now: this.clock.now() };
    const { value } = await this.runner.runTogether(
      async (step) => {
        const conversion = conversionOf(await step(purchaseStream(c.merchantId, purchase.order_id), purchaseDecider, command))!;
        return { conversion, pendingReward: await this.rewards.decide(step, conversion) };
      },
      { metadata: { merchantId: c.merchantId } },
    );
    if (value.pendingReward !== undefined) this.rewards.notifyPending(value.pendingReward);
    return value.conversion.conversionId;
  }
}

export const purchaseCommandHandlers = [RecordPurchaseHandler, AttributeConversionHandler];
