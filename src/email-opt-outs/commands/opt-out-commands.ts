/**
 * Opt-out use cases. A batch job is accepted at once (202) and processed in the background;
 * the job's pending state lives in the event store, so a job interrupted by a restart is
 * picked up again at start-up (each address is a no-op once opted out).
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { docKey, ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { everyDoc } from '../../platform/read-store/read-store.js';
import { PERSONAL_DATA, type PersonalDataEventStore } from '../../platform/personal-data/index.js';
import {
  normaliseEmail,
  type OptOutCommand,
  optOutDecider,
  type OptOutJobCommand,
  optOutJobDecider,
  optOutJobStream,
  optOutStream,
} from '../domain/email-opt-out.js';
import { OptOutQueries } from '../read-models/opt-out-queries.js';

export class SubmitOptOutJobCommand extends UseCase<UseCaseInput<Extract<OptOutJobCommand, { type: 'SubmitOptOutJob' }>, 'jobId'>, number> {}

export class RemoveOptOutCommand extends UseCase<UseCaseInput<Extract<OptOutCommand, { type: 'RemoveOptOut' }>>, void> {}

@Injectable()
export class OptOutJobProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('OptOutJobs');
  private readonly running = new Map<number, Promise<void>>();

  constructor(
    private readonly runner: CommandRunner,
    private readonly queries: OptOutQueries,
    private readonly projections: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PERSONAL_DATA) private readonly personalData: PersonalDataEventStore,
  ) {}

  /** Picks up jobs a restart interrupted, once the read models are complete. */
  onApplicationBootstrap(): void {
    void this.projections.caughtUp.then(async () => {
      for await (const job of everyDoc(this.queries.jobs, { status: 'processing' })) void this.start(job.id);
    });
  }

  start(jobId: number): Promise<void> {
    let run = this.running.get(jobId);
    if (!run) {
      run = this.process(jobId)
        .catch((error: Error) => this.logger.error(`opt-out job ${jobId} failed: ${error.message}`))
        .finally(() => this.running.delete(jobId));
      this.running.set(jobId, run);
    }
    return run;
  }

  private async process(jobId: number): Promise<void> {
    const job = await this.queries.jobs.get(docKey(jobId));
    if (!job || job.status !== 'processing') return;
    let optedOut = 0;
    const counted = new Set<string>();
    for (const emailAddress of job.email_addresses) {
      // Erased from the job meanwhile (read-model erasure): nothing left to opt out.
      if (emailAddress === null) continue;
      const result = await this.runner.run(
        optOutStream(job.merchant_id, this.personalData.emailKey(job.merchant_id, emailAddress)),
        optOutDecider,
        {
          type: 'OptOut',
          merchantId: job.merchant_id,
          emailAddress,
          jobId,
          now: this.clock.now(),
          emailKey: this.personalData.emailKey(job.merchant_id, emailAddress),
        },
        { metadata: { merchantId: job.merchant_id }, waitForReadModels: false },
      );
      // Opted out by this job now, or by this job's run that a restart interrupted: its own either way.
      const ours = result.events.length > 0 || result.state.byJob === jobId;
      const key = normaliseEmail(emailAddress);
      if (ours && !counted.has(key)) optedOut += 1;
      counted.add(key);
    }
    await this.runner.run(
      optOutJobStream(jobId),
      optOutJobDecider,
      {
        type: 'CompleteOptOutJob',
        jobId,
        merchantId: job.merchant_id,
        optedOutCount: optedOut,
        alreadyOptedOutCount: job.email_addresses.length - optedOut,
        now: this.clock.now(),
      },
      { metadata: { merchantId: job.merchant_id } },
    );
  }

  /** For tests and shutdown: resolves when every running job has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()]);
  }
}

@CommandHandler(SubmitOptOutJobCommand)
export class SubmitOptOutJobHandler implements ICommandHandler<SubmitOptOutJobCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly processor: OptOutJobProcessor,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {}

  async execute({ input: c }: SubmitOptOutJobCommand): Promise<number> {
    const jobId = this.ids.next();
    await this.runner.run(
      optOutJobStream(jobId),
      optOutJobDecider,
      { type: 'SubmitOptOutJob', ...c, jobId, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId } },
    );
    void this.processor.start(jobId);
    return jobId;
  }
}

@CommandHandler(RemoveOptOutCommand)
export class RemoveOptOutHandler implements ICommandHandler<RemoveOptOutCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PERSONAL_DATA) private readonly personalData: PersonalDataEventStore,
  ) {}

  async execute({ input: c }: RemoveOptOutCommand): Promise<void> {
    await this.runner.run(
      optOutStream(c.merchantId, this.personalData.emailKey(c.merchantId, c.emailAddress)),
      optOutDecider,
      { type: 'RemoveOptOut', ...c, now: this.clock.now(), emailKey: this.personalData.emailKey(c.merchantId, c.emailAddress) },
      { metadata: { merchantId: c.merchantId } },
    );
  }
}
