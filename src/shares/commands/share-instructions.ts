/**
 * Share instructions (spec §6 rule 2): before a share's emails go out, the merchant's
 * share-instructions URL is asked and its answer followed: allow, block, or replace the
 * message (docs/webhooks.md). A failure is retried on the webhook schedule while the share
 * waits; when the window runs out the emails are blocked (`share_instructions_unavailable`):
 * nothing is sent that the merchant asked to vet. Durable: waiting shares and their attempts
 * are in the event store, so a restart resumes.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { PeriodicTask } from '../../platform/periodic-task.js';
import { DUE_PER_PASS, dueBy } from '../../platform/projections/due-queue.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { MerchantDirectory } from '../../merchants/index.js';
import { ClientApiCaller, retrySchedule, retryWindowClosed, IntegrationSettingsQueries } from '../../integrations/index.js';
import { readShareInstructions, shareInstructionsRequest } from '../domain/share-payload.js';
import { shareDecider, shareStream } from '../domain/share.js';
import { ShareQueries } from '../read-models/share-queries.js';
import { ShareMailer } from './share-commands.js';

export const INSTRUCTIONS_UNAVAILABLE = 'share_instructions_unavailable';

@Injectable()
export class ShareInstructions implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ShareInstructions');
  private readonly inFlight = new Set<number>();
  private readonly task = new PeriodicTask('ShareInstructions', () => this.askDue());

  constructor(
    private readonly runner: CommandRunner,
    private readonly shares: ShareQueries,
    private readonly mailer: ShareMailer,
    private readonly caller: ClientApiCaller,
    private readonly integrations: IntegrationSettingsQueries,
    private readonly merchants: MerchantDirectory,
    private readonly projections: ProjectionRunner,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.mailer.consultWith(
      (merchantId) => this.url(merchantId),
      () => void this.task.tick(),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start(this.projections, this.config.schedulerTickMs);
  }

  private async url(merchantId: number): Promise<string | null> {
    return (await this.integrations.clientApi(merchantId)).shareInstructionsUrl;
  }

  private async askDue(): Promise<void> {
    // Each share's call runs on its own (inFlight keeps it from starting twice): the pass does not
    // wait for them, so one merchant's hanging endpoint holds up nobody else's.
    for (const due of await dueBy(this.shares.emailsDue, this.clock.now(), DUE_PER_PASS)) {
      if (!this.inFlight.has(due.id)) this.task.detach(this.ask(due.id));
    }
  }

  private async ask(shareId: number): Promise<void> {
    this.inFlight.add(shareId);
    try {
      const state = await this.mailer.state(shareId);
      const share = state.share;
      if (!share || state.emailsDecided) return;
      const url = await this.url(share.merchantId);
      // Awaited, not returned: a promise returned from inside the try settles after the finally has
      // taken the share out of inFlight, and a pass in between would start on it again.
      if (!url) return await this.mailer.send(shareId);
      const meta = { metadata: { merchantId: share.merchantId } };
      // An attempt is recorded at the time its request was sent: the retry grid counts from the first one.
      const sentAt = this.clock.now();
      // The round's last tick passed an interval ago or more (the service was down): "at most 24 hours"
      // (spec §6 rule 4), so no late question.
      if (retryWindowClosed(state.firstInstructionsAttemptAt, sentAt, this.config.webhookRetryIntervalMs, this.config.webhookRetryWindowMs)) {
        await this.runner.run(shareStream(shareId), shareDecider, { type: 'BlockShareEmails', shareId, reason: INSTRUCTIONS_UNAVAILABLE, now: sentAt }, meta);
        return;
      }
      const firstAttemptAt = state.firstInstructionsAttemptAt ? new Date(state.firstInstructionsAttemptAt) : sentAt;
      // A retry repeats the same request (spec §6 rule 4), whatever the merchant's settings became since.
      const canSeeRecipients = state.instructionsCanSeeRecipients ?? (await this.merchants.byId(share.merchantId))?.can_see_recipients ?? false;
      const result = await this.caller.call(share.merchantId, 'share_instructions', url, shareInstructionsRequest(share, { canSeeRecipients }), {
        id: `share-${shareId}`,
      });
      if (result.ok) {
        const answer = readShareInstructions(result.json);
        if (answer.action === 'block') {
          await this.runner.run(shareStream(shareId), shareDecider, { type: 'BlockShareEmails', shareId, reason: answer.reason, now: this.clock.now() }, meta);
        } else {
          await this.mailer.send(shareId, answer.action === 'replace_message' ? answer.message : undefined);
        }
        return;
      }
      const next = retrySchedule(firstAttemptAt, this.clock.now(), this.config.webhookRetryIntervalMs, this.config.webhookRetryWindowMs);
      await this.runner.run(
        shareStream(shareId),
        shareDecider,
        {
          type: 'RecordInstructionsAttempt',
          shareId,
          statusCode: result.status,
          error: result.error,
          nextAttemptAt: next.retry ? next.nextAttemptAt : null,
          canSeeRecipients,
          now: sentAt,
        },
        meta,
      );
      if (!next.retry) {
        await this.runner.run(
          shareStream(shareId),
          shareDecider,
          { type: 'BlockShareEmails', shareId, reason: INSTRUCTIONS_UNAVAILABLE, now: this.clock.now() },
          meta,
        );
      }
    } catch (error) {
      this.logger.warn(`share ${shareId}: ${(error as Error).message}`);
    } finally {
      this.inFlight.delete(shareId);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }
}
