/** Admin use cases on webhook endpoints: create, change (URL, kinds), delete. */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { type WebhookEndpointCommand, webhookEndpointDecider, webhookEndpointStream } from '../domain/webhook-endpoint.js';
import { UrlPolicy } from '../../integrations/index.js';
import { WebhookDispatcher } from '../delivery/webhook-dispatcher.js';

/** `events` null: every kind. */
export class CreateWebhookEndpointCommand extends UseCase<
  UseCaseInput<Extract<WebhookEndpointCommand, { type: 'CreateWebhookEndpoint' }>, 'endpointId'>,
  number
> {}

export class ChangeWebhookEndpointCommand extends UseCase<UseCaseInput<Extract<WebhookEndpointCommand, { type: 'ChangeWebhookEndpoint' }>>, void> {}

export class DeleteWebhookEndpointCommand extends UseCase<UseCaseInput<Extract<WebhookEndpointCommand, { type: 'DeleteWebhookEndpoint' }>>, void> {}

const admin = (merchantId: number) => ({ metadata: { merchantId, actor: 'admin' } });

@CommandHandler(CreateWebhookEndpointCommand)
export class CreateWebhookEndpointHandler implements ICommandHandler<CreateWebhookEndpointCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly urls: UrlPolicy,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute({ input: c }: CreateWebhookEndpointCommand): Promise<number> {
    await this.urls.check('url', c.url);
    const endpointId = this.ids.next();
    await this.runner.run(
      webhookEndpointStream(endpointId),
      webhookEndpointDecider,
      { type: 'CreateWebhookEndpoint', ...c, endpointId, now: this.clock.now() },
      admin(c.merchantId),
    );
    return endpointId;
  }
}

@CommandHandler(ChangeWebhookEndpointCommand)
export class ChangeWebhookEndpointHandler implements ICommandHandler<ChangeWebhookEndpointCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly urls: UrlPolicy,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: ChangeWebhookEndpointCommand): Promise<void> {
    if (c.url !== undefined) await this.urls.check('url', c.url);
    await this.runner.run(
      webhookEndpointStream(c.endpointId),
      webhookEndpointDecider,
      { type: 'ChangeWebhookEndpoint', ...c, now: this.clock.now() },
      admin(c.merchantId),
    );
  }
}

@CommandHandler(DeleteWebhookEndpointCommand)
export class DeleteWebhookEndpointHandler implements ICommandHandler<DeleteWebhookEndpointCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly dispatcher: WebhookDispatcher,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: DeleteWebhookEndpointCommand): Promise<void> {
    await this.runner.run(
      webhookEndpointStream(c.endpointId),
      webhookEndpointDecider,
      { type: 'DeleteWebhookEndpoint', ...c, now: this.clock.now() },
      admin(c.merchantId),
    );
    // Its pending deliveries are abandoned by the dispatcher's next sweep.
    this.dispatcher.wake();
  }
}

export const webhookEndpointCommandHandlers = [CreateWebhookEndpointHandler, ChangeWebhookEndpointHandler, DeleteWebhookEndpointHandler];
