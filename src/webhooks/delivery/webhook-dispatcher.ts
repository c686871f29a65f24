/**
 * Sends due webhook deliveries. The pending deliveries and their due times come from the
 * `webhook_due_at` read model (rebuilt from the log at start-up), so a restart picks up exactly
 * where the delivery streams stand. Each endpoint has its own queue with at most
 * ENDPOINT_CONCURRENCY requests in flight, so a slow or dead endpoint only ever holds up its own
 * deliveries, never another endpoint's or merchant's.
 *
 * Every attempt starts by reading the delivery's own stream (the truth, not the read model):
 * a delivery that is no longer pending or not yet due is left alone, so a delivered event is
 * never sent again except by an explicit redelivery. The attempt is recorded after the request,
 * in one append with its outcome; a crash between the two leaves the delivery pending and due,
 * so it is sent again after the restart (at least once; receivers dedupe on `webhook-id`).
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { MerchantDirectory } from '../../merchants/index.js';
import type { Counter } from 'prom-client';
import { Metrics } from '../../platform/observability/metrics.js';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { fold } from '../../platform/decider.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { WebhookDeliveryCommand, WebhookDeliveryEvent, webhookDeliveryDecider } from '../domain/webhook-delivery.js';
import { requestHeaders, OutboundHttp, failureReason, retryWindowClosed, IntegrationSettingsQueries } from '../../integrations/index.js';
import { DueDeliveryDoc } from '../read-models/webhook-deliveries.projection.js';
import { WebhookDeliveryQueries, WebhookEndpointQueries } from '../read-models/webhook-queries.js';

/** Requests in flight per endpoint. */
export const ENDPOINT_CONCURRENCY = 2;
/** Deliveries taken from the read model per endpoint beyond those in flight. */
const ENDPOINT_QUEUE = 50;
/** Longest sleep between two looks at the due queue (changes made elsewhere are seen this late at worst). */
const IDLE_SWEEP_MS = 1000;
const MIN_SLEEP_MS = 5;
/**
 * How long a shutdown lets requests in flight finish (at most their timeout) before cutting
 * them off; a cut-off request is not an attempt and goes out again after the restart.
 */
export const SHUTDOWN_GRACE_MS = 3000;
const RETRY_AFTER_FAILURE_MS = 1000;

interface EndpointQueue {
  waiting: DueDeliveryDoc[];
  running: number;
  /** Deliveries waiting or in flight here: never taken twice. */
  claimed: Set<number>;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly queues = new Map<number, EndpointQueue>();
  private readonly inFlight = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wakeRequested = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: CommandRunner,
    private readonly projections: ProjectionRunner,
    private readonly deliveries: WebhookDeliveryQueries,
    private readonly endpoints: WebhookEndpointQueries,
    private readonly settings: IntegrationSettingsQueries,
    private readonly merchants: MerchantDirectory,
    private readonly http: OutboundHttp,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
    metrics: Metrics,
  ) {
    this.outcomes = metrics.counter({
      name: 'referral_webhook_deliveries_total',
      help: 'Webhook attempts that delivered or failed, and deliveries abandoned',
      labelNames: ['outcome'],
    });
    const queries = this.deliveries;
    const now = () => this.clock.now().getTime();
    metrics.gauge({
      name: 'referral_webhook_queue_depth',
      help: 'Webhook deliveries due and not yet sent',
      // Read at scrape time, from the due queue's read model.
      async collect() {
        this.set(await queries.dueCount(new Date(now() + 1).toISOString()));
      },
    });
  }

  private readonly outcomes: Counter<'outcome'>;

  start(): void {
    this.stopping = false;
    this.loop = this.run();
  }

  /** Look at the due queue now (a delivery was scheduled, redelivered, or an endpoint deleted). */
  wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.wakeRequested = false;
      let nextDue: number | undefined;
      try {
        await this.sweep();
        const next = await this.deliveries.nextDue(this.clock.now().toISOString());
        nextDue = next ? Date.parse(next.due_at) : undefined;
      } catch (error) {
        this.logger.error(`webhook dispatcher sweep failed: ${(error as Error).message}`);
        nextDue = this.clock.now().getTime() + RETRY_AFTER_FAILURE_MS;
      }
      if (this.stopping) break;
      if (!this.wakeRequested) await this.sleep(nextDue);
    }
  }

  private sleep(until: number | undefined): Promise<void> {
    const wait = until === undefined ? IDLE_SWEEP_MS : Math.min(IDLE_SWEEP_MS, Math.max(MIN_SLEEP_MS, until - this.clock.now().getTime()));
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, wait);
      timer.unref();
      this.wakeUp = done;
    });
  }

  /** Fills every endpoint's queue with its due deliveries (a deleted endpoint's: all of them, to abandon). */
  private async sweep(): Promise<void> {
    const dueBefore = new Date(this.clock.now().getTime() + 1).toISOString();
    for (const endpoint of await this.endpoints.all()) {
      if (this.stopping) return;
      await this.refill(endpoint.id, endpoint.deleted ? undefined : dueBefore);
    }
  }

  private queue(endpointId: number): EndpointQueue {
    let queue = this.queues.get(endpointId);
    if (!queue) this.queues.set(endpointId, (queue = { waiting: [], running: 0, claimed: new Set() }));
    return queue;
  }

  private async refill(endpointId: number, dueBefore: string | undefined): Promise<void> {
    const queue = this.queue(endpointId);
    const capacity = ENDPOINT_CONCURRENCY + ENDPOINT_QUEUE;
    if (queue.claimed.size >= capacity) return;
    // Earliest due first. At most `claimed.size` of the first `capacity` are claimed already, so
    // they hold every unclaimed delivery there is room for.
    const docs = await this.deliveries.dueFor(endpointId, dueBefore, capacity);
    for (const doc of docs) {
      if (queue.claimed.size >= capacity) break;
      if (queue.claimed.has(doc.delivery_id)) continue;
      queue.claimed.add(doc.delivery_id);
      queue.waiting.push(doc);
    }
    this.pump(queue);
  }

  private pump(queue: EndpointQueue): void {
    while (!this.stopping && queue.running < ENDPOINT_CONCURRENCY && queue.waiting.length > 0) {
      const due = queue.waiting.shift()!;
      queue.running += 1;
      let released = false;
      // The endpoint's slot is for its request: freed once the answer is in, while the attempt
      // is recorded (the delivery stays claimed until then, so it is never taken twice).
      const release = () => {
        if (released) return;
        released = true;
        queue.running -= 1;
        if (!this.stopping) this.pump(queue);
      };
      const job: Promise<void> = this.deliver(due, release)
        .catch(async (error: Error) => {
          this.logger.error(`webhook delivery ${due.delivery_id} failed: ${error.message}`);
          if (!this.stopping) await delay(RETRY_AFTER_FAILURE_MS);
        })
        .finally(() => {
          release();
          queue.claimed.delete(due.delivery_id);
          this.inFlight.delete(job);
          if (!this.stopping) {
            this.pump(queue);
            this.wake();
          }
        });
      this.inFlight.add(job);
    }
  }

  /** One attempt of one delivery, if it is still pending and due; `requestDone` once its request has an answer. */
  private async deliver(due: DueDeliveryDoc, requestDone: () => void): Promise<void> {
    const history = await this.store.readStream(due.stream);
    const state = fold(
      webhookDeliveryDecider,
      history.map((e) => ({ type: e.type, data: e.data }) as WebhookDeliveryEvent),
    );
    let last = history.length > 0 ? history[history.length - 1].position : 0n;
    // One command per attempt, decided on the state just read (the runner does not read the
    // stream again; if it moved on meanwhile, the append is refused and the runner reads it).
    const known = { state, revision: history.length > 0 ? history[history.length - 1].revision : -1 };
    const run = async (command: WebhookDeliveryCommand) => {
      const result = await this.runner.run(due.stream, webhookDeliveryDecider, command, {
        waitForReadModels: false,
        metadata: { merchantId: state.merchantId ?? undefined, actor: 'webhooks' },
        known,
      });
      if (result.events.length > 0) last = result.events[result.events.length - 1].position;
      for (const event of result.events) {
        if (event.type === 'WebhookDelivered') this.outcomes.inc({ outcome: 'delivered' });
        else if (event.type === 'WebhookDeliveryAbandoned') this.outcomes.inc({ outcome: 'abandoned' });
        else if (event.type === 'WebhookDeliveryAttempted' && (event.data as { error: string | null }).error !== null) this.outcomes.inc({ outcome: 'failed' });
      }
    };
    try {
      if (state.status !== 'pending') return;
      const endpoint = await this.endpoints.byId(state.endpointId!);
      if (!endpoint || endpoint.deleted) {
        await run({ type: 'AbandonDelivery', reason: 'endpoint_deleted', now: this.clock.now() });
        return;
      }
      const now = this.clock.now();
      if (state.nextAttemptAt !== null && Date.parse(state.nextAttemptAt) > now.getTime()) return;
      // "at most 24 hours" (spec §6 rule 4): a round whose last tick passed an interval ago or more
      // (the service was down then) sends nothing more; the last tick's own attempt, a moment late, goes out.
      if (retryWindowClosed(state.roundStartedAt, now, this.config.webhookRetryIntervalMs, this.config.webhookRetryWindowMs)) {
        await run({ type: 'AbandonDelivery', reason: 'retry_window_exhausted', now });
        return;
      }
      const merchant = await this.merchants.byId(state.merchantId!);
      // Cannot sign without the merchant: fail (the job backs off) rather than spin on it.
      if (!merchant) throw new Error(`merchant ${state.merchantId} not found`);
      const body = JSON.stringify(state.payload);
      const headers = requestHeaders({
        secretKey: merchant.secret_key,
        id: state.payload!.id,
        timestamp: Math.floor(now.getTime() / 1000),
        body,
        signatureHeader: 'X-SERVICE-SIGNATURE',
        custom: await this.settings.customHeaders(merchant.id),
      });
      const result = await this.http.post({ url: endpoint.url, headers, body, read: 'status' });
      requestDone();
      // Cut off by a shutdown: not an attempt. The delivery stays due and goes out after the restart.
      if (result.interrupted) return;
      await run({
        type: 'RecordAttempt',
        url: endpoint.url,
        statusCode: result.statusCode,
        error: failureReason(result),
        latencyMs: result.latencyMs,
        at: now,
        round: state.round,
        intervalMs: this.config.webhookRetryIntervalMs,
        windowMs: this.config.webhookRetryWindowMs,
      });
    } finally {
      // Release the delivery only once the due queue shows what the stream says, so the next
      // sweep neither takes it again too early nor misses it.
      if (!this.stopping) await this.projections.waitFor(last);
    }
  }

  /**
   * Takes nothing new; lets requests in flight finish for a grace period, then cuts them off
   * (those are not recorded and go out again after the restart).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.loop;
    for (const queue of this.queues.values()) {
      for (const due of queue.waiting) queue.claimed.delete(due.delivery_id);
      queue.waiting = [];
    }
    const all = Promise.allSettled([...this.inFlight]);
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      all.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), Math.min(SHUTDOWN_GRACE_MS, this.config.webhookTimeoutMs));
      }),
    ]);
    clearTimeout(timer);
    if (!finished) {
      this.http.abortAll();
      await all;
    }
  }
}
