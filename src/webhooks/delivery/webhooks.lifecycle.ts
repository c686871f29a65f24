/**
 * Starts webhook delivery once the read models are complete and stops it cleanly. PlatformModule
 * is global, so Nest bootstraps it (and the projection runner's catch-up) before this module
 * and shuts it down after: the event store is still open while in-flight attempts are recorded.
 */
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { OutboundHttp } from '../../integrations/index.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookReactor } from './webhook-reactor.js';

@Injectable()
export class WebhooksLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projections: ProjectionRunner,
    private readonly reactor: WebhookReactor,
    private readonly dispatcher: WebhookDispatcher,
    private readonly http: OutboundHttp,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // The due queue and the endpoints must be complete before the first sweep.
    const head = await this.store.headPosition();
    while (this.projections.processed < head) await this.projections.waitFor(head);
    this.dispatcher.start();
    await this.reactor.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.reactor.stop();
    await this.dispatcher.stop();
    // Client-API calls still open are cut off too (their callers see a failure and retry later).
    this.http.abortAll();
  }
}
