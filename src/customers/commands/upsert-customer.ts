/** POST /v2/customers (and v1 referral codes): register an unseen account id, or update it. */
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { customerDecider, CustomerFields, customerStream } from '../domain/customer.js';

export class UpsertCustomerCommand extends Command<{ customerId: number; created: boolean }> {
  constructor(
    readonly merchantId: number,
    readonly accountId: string,
    readonly fields: Partial<CustomerFields>,
  ) {
    super();
  }
}

@CommandHandler(UpsertCustomerCommand)
export class UpsertCustomerHandler implements ICommandHandler<UpsertCustomerCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute(c: UpsertCustomerCommand): Promise<{ customerId: number; created: boolean }> {
    const result = await this.runner.run(
      customerStream(c.merchantId, c.accountId),
      customerDecider,
      { type: 'UpsertCustomer', merchantId: c.merchantId, accountId: c.accountId, newCustomerId: this.ids.next(), fields: c.fields, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId } },
    );
    return { customerId: result.state.customerId!, created: result.created };
  }
}
