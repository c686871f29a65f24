/**
 * Personal-data erasure jobs (docs/privacy.md). A job is accepted at once (202) and carried out in
 * the background, one step at a time, each recorded on the job's stream so that a job a restart
 * interrupted is picked up again at start-up and goes on from its last step:
 *
 * 1. find who: the addresses asked for, and the customers with those addresses, ids or account ids
 *    (their current addresses are erased too);
 * 2. destroy those subjects' keys: every read of the log finds null where their values were, from
 *    now on (a purchase recorded meanwhile is either sealed under a destroyed key, and reads null,
 *    or under a new key made after, as a new subject);
 * 3. once the read models have applied everything recorded before, work out which of their
 *    documents still hold those values, and record PersonalDataErased: the projections null them;
 * 4. complete: the merchant's webhook (user_data.deleted), the confirmation to the notification
 *    address, and the job's own key destroyed (the addresses it was asked for are gone with it).
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { PERSONAL_DATA, type PersonalDataEventStore, type Subject } from '../../platform/personal-data/index.js';
import { planErasure } from '../../platform/personal-data/read-model-erasure.js';
import { AnyProjection, collectionsOf, PROJECTIONS } from '../../platform/projections/projection.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { everyDoc, READ_STORE, type ReadStore } from '../../platform/read-store/read-store.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { CustomerQueries } from '../../customers/index.js';
import { Mailer } from '../../email/index.js';
import { fold } from '../../platform/decider.js';
import {
  type UserDataDeletionCommand,
  userDataDeletionDecider,
  type UserDataDeletionEvent,
  type UserDataDeletionState,
  userDataDeletionStream,
} from '../domain/user-data-deletion.js';
import { DeletionJobQueries } from '../read-models/deletion-job-queries.js';

export class RequestUserDataDeletionCommand extends UseCase<
  UseCaseInput<Extract<UserDataDeletionCommand, { type: 'RequestUserDataDeletion' }>, 'jobId'>,
  number
> {}

@Injectable()
export class UserDataDeletionProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('UserDataDeletion');
  private readonly running = new Map<number, Promise<void>>();
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly runner: CommandRunner,
    private readonly jobs: DeletionJobQueries,
    private readonly customers: CustomerQueries,
    private readonly projections: ProjectionRunner,
    private readonly mailer: Mailer,
    @Inject(PROJECTIONS) private readonly bound: AnyProjection[],
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PERSONAL_DATA) private readonly personalData: PersonalDataEventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Picks up jobs a restart interrupted, once the read models are complete. */
  onApplicationBootstrap(): void {
    void this.projections.caughtUp.then(async () => {
      for await (const job of everyDoc(this.jobs.collection, { status: 'processing' })) void this.start(job.id);
    });
  }

  /** Jobs run one after another: each walks a merchant's read models, and a burst of them must not run those walks at once. */
  start(jobId: number): Promise<void> {
    let run = this.running.get(jobId);
    if (!run) {
      const previous = this.last;
      run = previous
        .then(() => this.process(jobId))
        .catch((error: Error) => this.logger.error(`user data deletion ${jobId} failed: ${error.message}`))
        .finally(() => this.running.delete(jobId));
      this.running.set(jobId, run);
      this.last = run;
    }
    return run;
  }

  /** For tests and shutdown: resolves when every running job has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()]);
  }

  private async state(jobId: number): Promise<UserDataDeletionState> {
    return fold(userDataDeletionDecider, (await this.store.readStream(userDataDeletionStream(jobId))) as unknown as UserDataDeletionEvent[]);
  }

  private async process(jobId: number): Promise<void> {
    const state = await this.state(jobId);
    const request = state.requested;
    if (!request || state.completed) return;
    const merchantId = request.merchantId;
    const meta = { metadata: { merchantId } };

    // 1. Who: the addresses, and the customers found by address, id or account id (with their addresses).
    const addresses = new Set(request.emailAddresses.filter((a): a is string => typeof a === 'string'));
    const customerIds = new Set<number>();
    const found = [
      ...(await Promise.all([...addresses].map((email) => this.customers.find(merchantId, { email })))),
      ...(await Promise.all(request.customerIds.map((id) => this.customers.byId(merchantId, id)))),
      ...(await Promise.all(request.accountIds.filter((a): a is string => typeof a === 'string').map((a) => this.customers.byAccountId(merchantId, a)))),
    ];
    for (const customer of found) {
      if (!customer) continue;
      customerIds.add(customer.id);
      if (customer.email_lc) addresses.add(customer.email_lc);
    }
    // Ids asked for are erased even when the read model no longer knows them (a customer erased before).
    for (const id of request.customerIds) customerIds.add(id);

    // 2. Their keys. Repeated after a restart, it destroys nothing more.
    const subjects: Subject[] = [
      ...[...addresses].map((email): Subject => ({ kind: 'email', merchantId, email })),
      ...[...customerIds].map((customerId): Subject => ({ kind: 'customer', merchantId, customerId })),
    ];
    const keysDestroyed = await this.personalData.erase(subjects);
    // States folded before the erasure may hold the values: commands read the streams again.
    this.runner.forgetKeptStates();

    // 3. The read models, once they hold everything recorded before the keys went.
    if (!state.erasure) {
      await this.projections.waitFor(await this.store.headPosition());
      const scrub = await planErasure(this.readStore, collectionsOf(this.bound), merchantId, [...addresses], [...customerIds]);
      await this.runner.run(
        userDataDeletionStream(jobId),
        userDataDeletionDecider,
        { type: 'RecordErasure', jobId, merchantId, scrub, now: this.clock.now() },
        meta,
      );
    }

    // 4. Done: the webhook and the confirmation follow from the completion; then the request's own key goes.
    const now = this.clock.now();
    const messages =
      request.notificationEmail === null
        ? []
        : [
            {
              messageId: `user-data-deletion-${jobId}`,
              to: request.notificationEmail,
              subject: `Personal data deletion ${jobId} completed`,
              text: confirmationText(jobId, request.emailAddressesCount, customerIds.size, now),
            },
          ];
    await this.runner.run(
      userDataDeletionStream(jobId),
      userDataDeletionDecider,
      {
        type: 'CompleteUserDataDeletion',
        jobId,
        merchantId,
        customerIds: [...customerIds].sort((a, b) => a - b),
        keysDestroyed,
        messages,
        queuedFor: this.mailer.queuesFor,
        now,
      },
      meta,
    );
    await this.personalData.erase([{ kind: 'job', jobId }]);
    void this.mailer.kick();
  }
}

/** The confirmation names no address: it would keep, in the outbox, what was just erased. */
function confirmationText(jobId: number, addresses: number, customers: number, at: Date): string {
  return [
    `The personal data deletion request ${jobId} was completed at ${at.toISOString()}.`,
    `Email addresses in the request: ${addresses}. Customer records erased: ${customers}.`,
    'Their addresses, names, IP addresses, messages and the other personal values kept with them now read as null everywhere the service keeps or shows them, including its event log and audit trail.',
  ].join('\n');
}

@CommandHandler(RequestUserDataDeletionCommand)
export class RequestUserDataDeletionHandler implements ICommandHandler<RequestUserDataDeletionCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly processor: UserDataDeletionProcessor,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute({ input: c }: RequestUserDataDeletionCommand): Promise<number> {
    const jobId = this.ids.next();
    await this.runner.run(
      userDataDeletionStream(jobId),
      userDataDeletionDecider,
      { type: 'RequestUserDataDeletion', ...c, jobId, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId } },
    );
    void this.processor.start(jobId);
    return jobId;
  }
}
