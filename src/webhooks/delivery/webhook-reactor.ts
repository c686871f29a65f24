/**
 * Turns merchant-facing events into scheduled deliveries. Reads the event store's global log
 * with `for await`, and for each source event and each of the merchant's endpoints that wants
 * its kind, appends WebhookDeliveryScheduled to a new stream
 * `webhook-delivery-<endpointId>-<eventId>`: the stream's `no_stream` check makes scheduling
 * idempotent, so reading an event twice (a replay, a rescan after a crash) schedules nothing new.
 * Up to IN_FLIGHT events are handled at once, so that their appends share commits (group
 * commit) instead of waiting for one each; the position still moves in log order, past an event
 * only once it and every event before it are handled.
 *
 * Its position is kept in the event store (the stream `webhook-reactor-checkpoint`), because the
 * embedded read models are rebuilt at every start and cannot hold it. The checkpoint is only ever
 * a position whose every event has been fully handled, so a restart rescans at most what came
 * after it, which is harmless.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { MerchantDirectory } from '../../merchants/index.js';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { DomainEvent, EVENT_STORE, type EventStore, RecordedEvent, Subscription } from '../../platform/event-store/event-store.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { webhookDeliveryDecider, webhookDeliveryStream } from '../domain/webhook-delivery.js';
import { subscribesTo } from '../domain/webhook-endpoint.js';
import { KIND_OF_SOURCE, WebhookSourceEvent, isWebhookSource, merchantOf, webhookPayload } from '../domain/webhook-kinds.js';
import { WebhookEndpointQueries } from '../read-models/webhook-queries.js';
import { eventsAt } from '../read-models/webhook-endpoints.projection.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

export const REACTOR_CHECKPOINT_STREAM = 'webhook-reactor-checkpoint';
export type WebhookReactorCheckpointed = DomainEvent<'WebhookReactorCheckpointed', { position: string; checkpointedAt: string }>;

/** Save the position after this many source events, or after this long with any unsaved. */
const CHECKPOINT_EVERY_EVENTS = 100;
const CHECKPOINT_EVERY_MS = 2000;
/**
 * Without source events, save only after this many events (a rescan of them is cheap; a write
 * every few seconds, each of which is itself an event to read, is not). Counted, not measured
 * in positions: EventStoreDB positions are not event counts.
 */
const CHECKPOINT_IDLE_EVENTS = 10_000;
const RETRY_AFTER_FAILURE_MS = 1000;
/**
 * Events handled at once. One at a time, each source event waited for its own commit, which
 * capped scheduling at one commit's round trip per event (129 deliveries/s during the bench's
 * write load).
 */
const IN_FLIGHT = 32;

/** What a non-source event in the window waits for. */
const NOTHING_TO_DO = Promise.resolve(true);

/** An event being handled: true once its deliveries are scheduled, false when a stop came first. */
interface Handling {
  position: bigint;
  handled: Promise<boolean>;
  /** Handled (true): the position may move past it. */
  done: boolean;
}

@Injectable()
export class WebhookReactor {
  private readonly logger = new Logger('WebhookReactor');
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Last event fully handled. */
  private position = 0n;
  /** Last source event handled. */
  private lastSource = 0n;
  private saved = 0n;
  private sourcesSinceSave = 0;
  private eventsSinceSave = 0;
  private saving: Promise<void> | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: CommandRunner,
    private readonly projections: ProjectionRunner,
    private readonly endpoints: WebhookEndpointQueries,
    private readonly merchants: MerchantDirectory,
    private readonly dispatcher: WebhookDispatcher,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    // The last checkpoint only: the stream gains one per 100 source events, for as long as the log grows.
    const last = (await this.store.readLastOfStream(REACTOR_CHECKPOINT_STREAM)) as RecordedEvent<WebhookReactorCheckpointed> | undefined;
    this.position = this.saved = this.lastSource = last ? BigInt(last.data.position) : 0n;
    this.loop = this.follow();
    this.timer = setInterval(() => void this.saveCheckpoint(), CHECKPOINT_EVERY_MS);
    this.timer.unref();
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      const window: Handling[] = [];
      try {
        this.subscription = this.store.subscribe(this.position);
        for await (const event of this.subscription) {
          if (isWebhookSource(event) && merchantOf(event) !== undefined) {
            this.track(window, event);
            if (window.length >= IN_FLIGHT && !(await this.settle(window, IN_FLIGHT - 1))) break;
          } else if (window.length === 0) {
            // Most of the log: nothing to schedule, and no promise to make for it.
            this.passed(event.position);
          } else {
            window.push({ position: event.position, handled: NOTHING_TO_DO, done: true });
          }
          if (this.sourcesSinceSave >= CHECKPOINT_EVERY_EVENTS) await this.saveCheckpoint();
          if (this.stopped) break;
        }
        await this.settle(window, 0);
      } catch (error) {
        if (!this.stopped) this.logger.error(`webhook reactor failed at position ${this.position}: ${(error as Error).message}`);
      } finally {
        // Nothing of this pass runs on into the next one (or past a stop): it restarts from the position.
        await Promise.allSettled(window.map((h) => h.handled));
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, RETRY_AFTER_FAILURE_MS).unref());
    }
  }

  /** Starts handling a source event; the position moves past it (and the done ones after it) once it is done. */
  private track(window: Handling[], event: RecordedEvent<WebhookSourceEvent>): void {
    const handling: Handling = { position: event.position, handled: this.handle(event), done: false };
    window.push(handling);
    handling.handled.then(
      (ok) => {
        if (!ok) return;
        handling.done = true;
        this.advance(window);
      },
      // A failure surfaces where settle waits for it, not as an unhandled rejection meanwhile.
      () => undefined,
    );
  }

  /** Moves the position past the handlings at the head of the window that are done. */
  private advance(window: Handling[]): void {
    while (window.length > 0 && window[0].done) this.passed(window.shift()!.position);
  }

  /**
   * Waits for the oldest handlings until at most `keep` are left; false when one was not handled
   * (a stop): the position stays before it, so the next start reads it again. A handling that
   * failed throws here, with the position before it.
   */
  private async settle(window: Handling[], keep: number): Promise<boolean> {
    while (window.length > keep) {
      if (!(await window[0].handled)) return false;
      // Its own reaction, registered first, has moved the position past it already.
      this.advance(window);
    }
    return true;
  }

  /** Every event up to `position` is handled. */
  private passed(position: bigint): void {
    this.position = position;
    this.eventsSinceSave += 1;
  }

  /** Schedules the deliveries of one event; false when a stop came first. */
  private async handle(event: RecordedEvent<WebhookSourceEvent>): Promise<boolean> {
    const merchantId = merchantOf(event)!;
    this.sourcesSinceSave += 1;
    this.lastSource = event.position;
    // The endpoints read model must include every configuration change up to this event.
    while (this.projections.processed < event.position) {
      if (this.stopped) return false;
      await this.projections.waitFor(event.position);
    }
    const kind = KIND_OF_SOURCE[event.type];
    const endpoints = (await this.endpoints.ofMerchant(merchantId)).filter(
      // An endpoint gets the events recorded after it was created, never older ones, and by the
      // subscription it had when the event was recorded, not a later one (a rescan included).
      (e) => BigInt(e.created_position) < event.position && subscribesTo(eventsAt(e, event.position), kind),
    );
    if (endpoints.length === 0) return true;
    const merchant = await this.merchants.byId(merchantId);
    const payload = webhookPayload(event, { canSeeRecipients: merchant?.can_see_recipients ?? false });
    let last: bigint | undefined;
    for (const endpoint of endpoints) {
      const result = await this.runner.run(
        webhookDeliveryStream(endpoint.id, event.id),
        webhookDeliveryDecider,
        { type: 'ScheduleDelivery', deliveryId: this.ids.next(), endpointId: endpoint.id, merchantId, payload, now: this.clock.now() },
        // New unless a rescan handles this event again (then the append finds it and nothing changes).
        { waitForReadModels: false, metadata: { merchantId, actor: 'webhooks', causationId: event.id }, likelyNew: true },
      );
      if (result.events.length > 0) last = result.events[result.events.length - 1].position;
    }
    if (last !== undefined) {
      await this.projections.waitFor(last);
      this.dispatcher.wake();
    }
    return true;
  }

  private saveCheckpoint(): Promise<void> {
    if (this.saving) return this.saving;
    const position = this.position;
    const worth = this.lastSource > this.saved || this.eventsSinceSave >= CHECKPOINT_IDLE_EVENTS;
    if (position <= this.saved || !worth) return Promise.resolve();
    this.sourcesSinceSave = 0;
    this.eventsSinceSave = 0;
    const event = { type: 'WebhookReactorCheckpointed', data: { position: position.toString(), checkpointedAt: this.clock.now().toISOString() } };
    this.saving = this.store
      .append(REACTOR_CHECKPOINT_STREAM, [event], 'any')
      .then(() => {
        this.saved = position;
      })
      .catch((error: Error) => this.logger.warn(`could not save the webhook reactor checkpoint: ${error.message}`))
      .finally(() => {
        this.saving = undefined;
      });
    return this.saving;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.close();
    await this.loop;
    await this.saving;
    await this.saveCheckpoint();
  }
}
