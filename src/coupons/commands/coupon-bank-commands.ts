/** Admin use cases on coupon banks: upload a bank, add codes to it. */
import { Inject, Injectable } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { ConflictError } from '../../platform/errors.js';
import { KeyedTurns } from '../../platform/keyed-turns.js';
import { couponBankDecider, couponBankStream } from '../domain/coupon-bank.js';
import { CouponQueries } from '../read-models/coupon-queries.js';

export class CreateCouponBankCommand extends Command<number> {
  constructor(
    readonly merchantId: number,
    readonly name: string,
    readonly codes: string[],
    /** A chosen id (sample data); a new one otherwise. */
    readonly bankId?: number,
  ) {
    super();
  }
}

export class AddCouponCodesCommand extends Command<void> {
  constructor(
    readonly merchantId: number,
    readonly bankId: number,
    readonly codes: string[],
  ) {
    super();
  }
}

/** Codes looked up at once when an upload is checked. */
const CHECK_CHUNK = 500;

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

  private async refuseCodesOfOtherBanks(merchantId: number, codes: string[], bankId: number | undefined): Promise<void> {
    const taken: string[] = [];
    const unique = [...new Set(codes)];
    for (let i = 0; i < unique.length; i += CHECK_CHUNK) {
      const found = await Promise.all(unique.slice(i, i + CHECK_CHUNK).map((code) => this.coupons.byCode(merchantId, code)));
      for (const doc of found) if (doc && doc.bank_id !== bankId) taken.push(doc.code);
    }
    if (taken.length > 0) {
      const shown = taken.slice(0, 10).join(', ');
      throw new ConflictError([`${taken.length} code(s) are already in another of your coupon banks: ${shown}${taken.length > 10 ? ', …' : ''}`]);
    }
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

  async execute(c: CreateCouponBankCommand): Promise<number> {
    const bankId = c.bankId ?? this.ids.next();
    await this.turns.upload(c.merchantId, c.codes, undefined, () =>
      this.runner.run(
        couponBankStream(bankId),
        couponBankDecider,
        { type: 'CreateCouponBank', bankId, merchantId: c.merchantId, name: c.name, codes: c.codes, now: this.clock.now() },
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

  async execute(c: AddCouponCodesCommand): Promise<void> {
    await this.turns.upload(c.merchantId, c.codes, c.bankId, () =>
      this.runner.run(
        couponBankStream(c.bankId),
        couponBankDecider,
        { type: 'AddCouponCodes', bankId: c.bankId, merchantId: c.merchantId, codes: c.codes, now: this.clock.now() },
        { metadata: { merchantId: c.merchantId, actor: 'admin' } },
      ),
    );
  }
}

export const couponCommandHandlers = [CouponTurns, CreateCouponBankHandler, AddCouponCodesHandler];
