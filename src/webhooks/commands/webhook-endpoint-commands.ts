/** Admin use cases on webhook endpoints: create, change (URL, kinds), delete. */
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { webhookEndpointDecider, webhookEndpointStream } from '../domain/webhook-endpoint.js';
import { UrlPolicy } from '../../integrations/index.js';
import { WebhookDispatcher } from '../delivery/webhook-dispatcher.js';

export class CreateWebhookEndpointCommand extends Command<number> {
  constructor(
    readonly merchantId: number,
    readonly url: string,
    /** null: every kind. */
    readonly events: readonly string[] | null,
  ) {
    super();
  }
}

export class ChangeWebhookEndpointCommand extends Command<void> {
  constructor(
    readonly merchantId: number,
    readonly endpointId: number,
    readonly changes: { url?: string; events?: readonly string[] | null },
  ) {
    super();
  }
}

export class DeleteWebhookEndpointCommand extends Command<void> {
  constructor(
    readonly merchantId: number,
    readonly endpointId: number,
  ) {
    super();
  }
}

const admin = (merchantId: number) => ({ metadata: { merchantId, actor: 'admin' } });

@CommandHandler(CreateWebhookEndpointCommand)
export class CreateWebhookEndpointHandler implements ICommandHandler<CreateWebhookEndpointCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly urls: UrlPolicy,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute(c: CreateWebhookEndpointCommand): Promise<number> {
    await this.urls.check('url', c.url);
    const endpointId = this.ids.next();
    await this.runner.run(
      webhookEndpointStream(endpointId),
      webhookEndpointDecider,
      { type: 'CreateWebhookEndpoint', endpointId, merchantId: c.merchantId, url: c.url, events: c.events, now: this.clock.now() },
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

  async execute(c: ChangeWebhookEndpointCommand): Promise<void> {
    if (c.changes.url !== undefined) await this.urls.check('url', c.changes.url);
    await this.runner.run(
      webhookEndpointStream(c.endpointId),
      webhookEndpointDecider,
      { type: 'ChangeWebhookEndpoint', endpointId: c.endpointId, merchantId: c.merchantId, ...c.changes, now: this.clock.now() },
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

  async execute(c: DeleteWebhookEndpointCommand): Promise<void> {
    await this.runner.run(
      webhookEndpointStream(c.endpointId),
      webhookEndpointDecider,
      { type: 'DeleteWebhookEndpoint', endpointId: c.endpointId, merchantId: c.merchantId, now: this.clock.now() },
      admin(c.merchantId),
    );
    // Its pending deliveries are abandoned by the dispatcher's next sweep.
    this.dispatcher.wake();
  }
}

export const webhookEndpointCommandHandlers = [CreateWebhookEndpointHandler, ChangeWebhookEndpointHandler, DeleteWebhookEndpointHandler];
