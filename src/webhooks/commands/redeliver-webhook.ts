/** Admin: send a delivery again (a new round of attempts with its own retry window). */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ConflictError } from '../../platform/errors.js';
import { UseCase } from '../../platform/use-case.js';
import { type RedeliveryRequest, webhookDeliveryDecider } from '../domain/webhook-delivery.js';
import { WebhookDispatcher } from '../delivery/webhook-dispatcher.js';
import { WebhookDeliveryQueries, WebhookEndpointQueries } from '../read-models/webhook-queries.js';

export class RedeliverWebhookCommand extends UseCase<RedeliveryRequest, void> {}

@CommandHandler(RedeliverWebhookCommand)
export class RedeliverWebhookHandler implements ICommandHandler<RedeliverWebhookCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly deliveries: WebhookDeliveryQueries,
    private readonly endpoints: WebhookEndpointQueries,
    private readonly dispatcher: WebhookDispatcher,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: RedeliverWebhookCommand): Promise<void> {
    const delivery = await this.deliveries.require(c.merchantId, c.deliveryId);
    const endpoint = await this.endpoints.byId(delivery.endpoint_id);
    if (!endpoint || endpoint.deleted) throw new ConflictError([`webhook endpoint ${delivery.endpoint_id} of this delivery was deleted`]);
    await this.runner.run(
      delivery.stream,
      webhookDeliveryDecider,
      { type: 'RequestRedelivery', by: 'admin', now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
    this.dispatcher.wake();
  }
}
