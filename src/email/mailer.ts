/**
 * Delivers queued messages through the email port. The queue is the outbox read model, which
 * is rebuilt from the event store, so a message queued before a crash is delivered after it.
 * Each delivery is recorded in the message's own stream with "no stream" expected, so a
 * message is marked delivered once; a crash between the transport's answer and that record
 * means one repeat delivery (at-least-once), never a loss. Opt-outs are checked again at
 * delivery time. A pass runs when a message is queued and on every scheduler tick, so a message
 * whose delivery failed for now (SMTP down, a 4xx reply) is tried again `EMAIL_RETRY_INTERVAL_MS`
 * later without waiting for another message, for as long as it takes; a pass walks the whole
 * queue, past messages that failed recently. One the receiving server refused for good (a 5xx
 * reply to its recipient or content: EmailRefused) is recorded failed, once, and not tried again.
 *
 * A message queued by a process with SMTP_URL (`queued_for: smtp`) is only ever sent through SMTP:
 * a process without it (restarted without SMTP_URL while the server was down) leaves it queued,
 * and says at start-up how many wait, rather than marking it delivered to the outbox, which sends
 * nothing. Messages queued without SMTP (or before this was recorded) go through whichever sender.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock } from '../platform/clock.js';
import { CONFIG, type Config } from '../platform/config.js';
import { EVENT_STORE, type EventStore, WrongExpectedRevisionError } from '../platform/event-store/event-store.js';
import { PeriodicTask } from '../platform/periodic-task.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { everyDoc, READ_STORE, type ReadCollection, type ReadStore } from '../platform/read-store/read-store.js';
import { OptOutQueries } from '../email-opt-outs/index.js';
import { EmailDelivered, emailDeliveryStream, EmailFailed, EmailQueuedFor, EmailSuppressed } from './domain/email-events.js';
import { EMAIL_SENDER, EmailRefused, type EmailSender } from './email-sender.js';
import { OutboxDoc, outboxCollection } from './read-models/outbox.projection.js';

/** Queued messages read per page of a pass. */
const PAGE = 100;

@Injectable()
export class Mailer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Mailer');
  private readonly outbox: ReadCollection<OutboxDoc>;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** The scheduler's tick (PeriodicTask): a pass every SCHEDULER_TICK_MS once the read models have caught up. */
  private readonly ticks = new PeriodicTask('Mailer', () => this.kick());
  private readonly failedAt = new Map<string, number>();

  constructor(
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(EMAIL_SENDER) private readonly sender: EmailSender,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly optOuts: OptOutQueries,
    private readonly projections: ProjectionRunner,
  ) {
    this.outbox = readStore.collection<OutboxDoc>(outboxCollection);
  }

  onApplicationBootstrap(): void {
    this.ticks.start(this.projections, this.config.schedulerTickMs);
    if (this.sender.name !== 'smtp') void this.projections.caughtUp.then(() => this.warnOfMessagesWaitingForSmtp());
  }

  /** The sender that messages queued by this process are for (recorded on the events that queue them). */
  get queuesFor(): EmailQueuedFor {
    return this.sender.name;
  }

  private async warnOfMessagesWaitingForSmtp(): Promise<void> {
    try {
      const waiting = await this.outbox.count({ where: { status: 'queued', queued_for: 'smtp' } });
      if (waiting > 0) {
        this.logger.warn(
          `${waiting} queued email message(s) wait for SMTP: they were queued while SMTP_URL was set and are sent when the service runs with SMTP_URL again (GET /admin/merchants/{id}/outbox?status=queued lists them)`,
          { waiting_for_smtp: waiting },
        );
      }
    } catch (error) {
      this.logger.warn(`could not count the messages waiting for SMTP: ${(error as Error).message}`);
    }
  }

  /** Delivers everything queued; concurrent calls coalesce into one more pass. */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.deliverQueued();
      } while (this.again && !this.stopped);
    })()
      .catch((error: Error) => this.logger.error(`delivery pass failed: ${error.message}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** One walk over the queue in (created_at, id) order; messages that failed recently wait for a later pass. */
  private async deliverQueued(): Promise<void> {
    for await (const message of everyDoc(this.outbox, { status: 'queued' }, PAGE)) {
      if (this.stopped) return;
      if (message.queued_for === 'smtp' && this.sender.name !== 'smtp') continue;
      if (Date.now() - (this.failedAt.get(message._id) ?? -Infinity) >= this.config.emailRetryIntervalMs) await this.deliver(message);
    }
  }

  private async deliver(message: OutboxDoc): Promise<void> {
    const stream = emailDeliveryStream(message._id);
    const at = this.clock.now().toISOString();
    try {
      let event: EmailDelivered | EmailSuppressed | EmailFailed;
      if (message.to === null || message.subject === null || message.text === null) {
        event = { type: 'EmailSuppressed', data: { messageId: message._id, merchantId: message.merchant_id, to: null, reason: 'erased', suppressedAt: at } };
      } else if (await this.optOuts.isOptedOut(message.merchant_id, message.to)) {
        event = {
          type: 'EmailSuppressed',
          data: { messageId: message._id, merchantId: message.merchant_id, to: message.to, reason: 'opted_out', suppressedAt: at },
        };
      } else {
        try {
          await this.sender.send({ messageId: message._id, from: this.config.emailFrom, to: message.to, subject: message.subject, text: message.text });
          event = {
            type: 'EmailDelivered',
            data: { messageId: message._id, merchantId: message.merchant_id, to: message.to, deliveredAt: at, via: this.sender.name },
          };
        } catch (error) {
          // Refused for good: recorded, so no pass tries it again. Anything else leaves it queued (below).
          if (!(error instanceof EmailRefused)) throw error;
          event = {
            type: 'EmailFailed',
            data: { messageId: message._id, merchantId: message.merchant_id, to: message.to, replyCode: error.replyCode, reply: error.reply, failedAt: at },
          };
        }
      }
      const result = await this.store.append(stream, [{ ...event, metadata: { merchantId: message.merchant_id } }], 'no_stream');
      await this.projections.waitFor(result.position);
      this.failedAt.delete(message._id);
      if (event.type === 'EmailFailed')
        this.logger.warn(`message ${message._id} was refused for good (${event.data.replyCode}) and is not tried again: ${event.data.reply}`);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return; // recorded already
      this.failedAt.set(message._id, Date.now());
      this.logger.warn(`could not deliver message ${message._id}: ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.ticks.stop();
    await this.running;
    await this.sender.close();
  }
}
