/** POST /v2/customers (and v1 referral codes): register an unseen account id, or update it. */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { type CustomerCommand, customerDecider, customerStream } from '../domain/customer.js';

export class UpsertCustomerCommand extends UseCase<
  UseCaseInput<Extract<CustomerCommand, { type: 'UpsertCustomer' }>, 'newCustomerId'>,
  { customerId: number; created: boolean }
> {}

@CommandHandler(UpsertCustomerCommand)
export class UpsertCustomerHandler implements ICommandHandler<UpsertCustomerCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute({ input: c }: UpsertCustomerCommand): Promise<{ customerId: number; created: boolean }> {
    const result = await this.runner.run(
      customerStream(c.merchantId, c.accountId),
      customerDecider,
      { type: 'UpsertCustomer', ...c, newCustomerId: this.ids.next(), now: this.clock.now() },
      { metadata: { merchantId: c.merchantId } },
    );
    return { customerId: result.state.customerId!, created: result.created };
  }
}
