/**
 * Custom reward validation (spec §6 rule 2, X-SERVICE-SIGNATURE-V2): a pending reward is put
 * to the merchant's validation URL (the widget's own, else the merchant's). 200 approves unless
 * the body says `{"approved": false}`; anything else is retried on the webhook schedule, and
 * when the window runs out the reward is rejected with `validation_callback_failed`.
 *
 * Durable: the pending rewards, their attempts and the next attempt's time are in the event
 * store (the rewards read model is rebuilt from it), so a restart resumes the schedule.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner, PlanAbandoned, unlessAbandoned } from '../../platform/command-runner.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { fold } from '../../platform/decider.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.js';
import { PeriodicTask } from '../../platform/periodic-task.js';
import { DUE_PER_PASS, DueDoc, dueBy } from '../../platform/projections/due-queue.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { READ_STORE, type ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { ClientApiCaller, retrySchedule, retryWindowClosed, IntegrationSettingsQueries } from '../../integrations/index.js';
import { readRewardValidation, rewardValidationRequest } from '../domain/reward-validation.js';
import { WidgetQueries } from '../../widgets/index.js';
import { rewardValidationDueProjection } from '../read-models/reward-validation-due.js';
import { rewardDecider, RewardStreamEvent } from '../domain/reward.js';
import { RewardEvaluator } from './reward-evaluator.js';

@Injectable()
export class RewardValidator implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RewardValidation');
  private readonly inFlight = new Set<number>();
  private readonly task = new PeriodicTask('RewardValidation', () => this.validateDue());
  private readonly queue: ReadCollection<DueDoc>;

  constructor(
    private readonly runner: CommandRunner,
    private readonly widgets: WidgetQueries,
    private readonly evaluator: RewardEvaluator,
    private readonly caller: ClientApiCaller,
    private readonly integrations: IntegrationSettingsQueries,
    private readonly projections: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(READ_STORE) readStore: ReadStore,
  ) {
    this.queue = readStore.collection<DueDoc>(rewardValidationDueProjection.collection);
  }

  onModuleInit(): void {
    this.evaluator.onPending(() => void this.task.tick());
  }

  onApplicationBootstrap(): void {
    this.task.start(this.projections, this.config.schedulerTickMs);
  }

  /** One pass over the pending rewards that are due, earliest first; each reward is asked at most once at a time. */
  private async validateDue(): Promise<void> {
    // Each reward's call runs on its own (inFlight keeps it from starting twice): the pass does not
    // wait for them, so one merchant's hanging endpoint holds up nobody else's.
    for (const due of await dueBy(this.queue, this.clock.now(), DUE_PER_PASS)) {
      if (!this.inFlight.has(due.id)) this.task.detach(this.validate(due.id, due.stream));
    }
  }

  private async validate(rewardId: number, stream: string): Promise<void> {
    this.inFlight.add(rewardId);
    try {
      const state = fold(rewardDecider, (await this.store.readStream(stream)) as unknown as RewardStreamEvent[]);
      if (state.status !== 'pending' || !state.facts) return;
      const facts = state.facts;
      const widget = await this.widgets.byId(facts.merchantId, facts.widgetId);
      const url = widget?.settings.rewardValidationUrl ?? (await this.integrations.clientApi(facts.merchantId)).rewardValidationUrl;
      const meta = { metadata: { merchantId: facts.merchantId } };
      const complete = async (
        approved: boolean,
        reasons: ('validation_callback_rejected' | 'validation_callback_failed' | 'advocate_reward_cap_reached')[],
        note: string | null = null,
      ) => {
        // The advocate's count and the outcome are one plan (one commit where the store can).
        await unlessAbandoned(
          this.runner.runTogether(async (step) => {
            const withinCap = approved && widget ? await this.evaluator.countInPlan(step, facts, widget.settings.rewardCriteria, true) : approved;
            const outcome =
              approved && withinCap
                ? ({ kind: 'approved' } as const)
                : ({ kind: 'rejected', reasons: approved ? ['advocate_reward_cap_reached' as const] : reasons, note } as const);
            const decided = await step(stream, rewardDecider, { type: 'CompleteValidation', rewardId: facts.rewardId, outcome, now: this.clock.now() });
            // Decided by hand while the callback was in flight: nothing of the plan may be committed,
            // least of all a count against the cap for a reward that is rejected.
            if (decided.length === 0) throw new PlanAbandoned();
          }, meta),
        );
      };
      // Every completion is awaited here, not returned: a promise returned from inside the try
      // settles after the finally has taken the reward out of inFlight, and a pass in between
      // asked the merchant a second time while the first answer was being committed.
      // The callback was configured when the reward was evaluated and is gone now: nothing to ask.
      if (!url) return await complete(true, []);
      // An attempt is recorded at the time its request was sent: the retry grid counts from the first one.
      const sentAt = this.clock.now();
      // The round's last tick passed an interval ago or more (the service was down): "at most 24 hours"
      // (spec §6 rule 4), so no late question.
      if (retryWindowClosed(state.firstAttemptAt, sentAt, this.config.webhookRetryIntervalMs, this.config.webhookRetryWindowMs))
        return await complete(false, ['validation_callback_failed']);
      const firstAttemptAt = state.firstAttemptAt ? new Date(state.firstAttemptAt) : sentAt;
      const result = await this.caller.call(facts.merchantId, 'reward_validation', url, rewardValidationRequest(facts), { id: `reward-${facts.rewardId}` });
      if (result.ok) {
        await this.runner.run(
          stream,
          rewardDecider,
          { type: 'RecordValidationAttempt', rewardId: facts.rewardId, statusCode: 200, error: null, nextAttemptAt: null, now: sentAt },
          meta,
        );
        const answer = readRewardValidation(result.json);
        // The merchant's reason, if its answer gives one, is kept beside the code (decision_reason).
        return await complete(answer.approved, ['validation_callback_rejected'], answer.approved ? null : answer.reason?.slice(0, 1000) || null);
      }
      const next = retrySchedule(firstAttemptAt, this.clock.now(), this.config.webhookRetryIntervalMs, this.config.webhookRetryWindowMs);
      await this.runner.run(
        stream,
        rewardDecider,
        {
          type: 'RecordValidationAttempt',
          rewardId: facts.rewardId,
          statusCode: result.status,
          error: result.error,
          nextAttemptAt: next.retry ? next.nextAttemptAt : null,
          now: sentAt,
        },
        meta,
      );
      if (!next.retry) await complete(false, ['validation_callback_failed']);
    } catch (error) {
      this.logger.warn(`validation of reward ${rewardId} failed: ${(error as Error).message}`);
    } finally {
      this.inFlight.delete(rewardId);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }
}
