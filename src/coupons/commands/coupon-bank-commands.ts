/** Admin use cases on coupon banks: upload a bank, add codes to it. */
import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { ConflictError } from '../../platform/errors.js';
import { KeyedTurns } from '../../platform/keyed-turns.js';
import { type CouponBankCommand, couponBankDecider, couponBankStream } from '../domain/coupon-bank.js';
import { CouponQueries } from '../read-models/coupon-queries.js';

type CreateCouponBank = Extract<CouponBankCommand, { type: 'CreateCouponBank' }>;

/** `bankId`: a chosen id (sample data); a new one otherwise. */
export class CreateCouponBankCommand extends UseCase<UseCaseInput<CreateCouponBank, 'bankId'> & Partial<Pick<CreateCouponBank, 'bankId'>>, number> {}

export class AddCouponCodesCommand extends UseCase<UseCaseInput<Extract<CouponBankCommand, { type: 'AddCouponCodes' }>>, void> {}

/**
 * A merchant's coupon writes take turns in this process (one process per data directory): bank
 * uploads, and the v1 requests that associate a coupon. Each checks the read models, which every
 * earlier turn has updated before it ended (commands wait for the read models), so two uploads
 * never both add one code, and two requests never both pass the check for one coupon.
 *
 * A coupon code is in at most one of a merchant's banks: a purchase names the code alone, so a
 * code in two banks could be handed to two advocates and credit the wrong one.
 */
@Injectable()
export class CouponTurns {
  constructor(
    private readonly turns: KeyedTurns,
    private readonly coupons: CouponQueries,
  ) {}

  /** Runs `work` once the merchant's earlier coupon writes are done. */
  take<T>(merchantId: number, work: () => Promise<T>): Promise<T> {
    return this.turns.take(`coupons:${merchantId}`, work);
  }

  /** Runs `upload` in the merchant's turn, if none of `codes` is in a bank other than `bankId`. */
  upload<T>(merchantId: number, codes: string[], bankId: number | undefined, upload: () => Promise<T>): Promise<T> {
    return this.take(merchantId, async () => {
      await this.refuseCodesOfOtherBanks(merchantId, codes, bankId);
      return upload();
    });
  }

  /**
   * Refuses codes another bank holds, and codes that differ in case alone (or in spaces around them)
   * from a code of any of the merchant's banks, this one included: a purchase names a code as the
   * friend typed it, and `aaa-1` beside `AAA-1` could go to two advocates.
   */
  private async refuseCodesOfOtherBanks(merchantId: number, codes: string[], bankId: number | undefined): Promise<void> {
    const taken: string[] = [];
    const clashes: string[] = [];
    for (const [code, doc] of await this.coupons.byCodes(merchantId, [...new Set(codes)])) {
      if (doc && doc.code !== code) clashes.push(`${code} (${doc.code} in coupon bank ${doc.bank_id})`);
      else if (doc && doc.bank_id !== bankId) taken.push(doc.code);
    }
    const shown = (list: string[]) => `${list.slice(0, 10).join(', ')}${list.length > 10 ? ', …' : ''}`;
    const errors: string[] = [];
    if (taken.length > 0) errors.push(`${taken.length} code(s) are already in another of your coupon banks: ${shown(taken)}`);
    if (clashes.length > 0)
      errors.push(
        `${clashes.length} code(s) differ in case alone from codes already in your coupon banks (codes are compared case-insensitively): ${shown(clashes)}`,
      );
    if (errors.length > 0) throw new ConflictError(errors);
  }
}

@CommandHandler(CreateCouponBankCommand)
export class CreateCouponBankHandler implements ICommandHandler<CreateCouponBankCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
    private readonly turns: CouponTurns,
  ) {}

  async execute({ input: c }: CreateCouponBankCommand): Promise<number> {
    const bankId = c.bankId ?? this.ids.next();
    await this.turns.upload(c.merchantId, c.codes, undefined, () =>
      this.runner.run(
        couponBankStream(bankId),
        couponBankDecider,
        { type: 'CreateCouponBank', ...c, bankId, now: this.clock.now() },
        { metadata: { merchantId: c.merchantId, actor: 'admin' } },
      ),
    );
    return bankId;
  }
}

@CommandHandler(AddCouponCodesCommand)
export class AddCouponCodesHandler implements ICommandHandler<AddCouponCodesCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly turns: CouponTurns,
  ) {}

  async execute({ input: c }: AddCouponCodesCommand): Promise<void> {
    await this.turns.upload(c.merchantId, c.codes, c.bankId, () =>
      this.runner.run(
        couponBankStream(c.bankId),
        couponBankDecider,
        { type: 'AddCouponCodes', ...c, now: this.clock.now() },
        { metadata: { merchantId: c.merchantId, actor: 'admin' } },
      ),
    );
  }
}

export const couponCommandHandlers = [CouponTurns, CreateCouponBankHandler, AddCouponCodesHandler];
