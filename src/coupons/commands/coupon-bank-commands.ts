/** Admin use cases on coupon banks: upload a bank, add codes to it. */
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { couponBankDecider, couponBankStream } from '../domain/coupon-bank.js';

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

@CommandHandler(CreateCouponBankCommand)
export class CreateCouponBankHandler implements ICommandHandler<CreateCouponBankCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute(c: CreateCouponBankCommand): Promise<number> {
    const bankId = c.bankId ?? this.ids.next();
    await this.runner.run(
      couponBankStream(bankId),
      couponBankDecider,
      { type: 'CreateCouponBank', bankId, merchantId: c.merchantId, name: c.name, codes: c.codes, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
    return bankId;
  }
}

@CommandHandler(AddCouponCodesCommand)
export class AddCouponCodesHandler implements ICommandHandler<AddCouponCodesCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(c: AddCouponCodesCommand): Promise<void> {
    await this.runner.run(
      couponBankStream(c.bankId),
      couponBankDecider,
      { type: 'AddCouponCodes', bankId: c.bankId, merchantId: c.merchantId, codes: c.codes, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
  }
}

export const couponCommandHandlers = [CreateCouponBankHandler, AddCouponCodesHandler];
