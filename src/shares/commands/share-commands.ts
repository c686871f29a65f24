/**
 * Share use cases: create a share (with its own referral code) by email or through a social
 * channel (no emails: the page posts the link itself), decide an email share's emails,
 * and send each due reminder once to the recipients who have neither converted nor opted out
 * (none when the share's code was blacklisted).
 */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner, PlanAbandoned, unlessAbandoned } from '../../platform/command-runner.js';
import { CONFIG, type Config } from '../../platform/config.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.js';
import { fold } from '../../platform/decider.js';
import { ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { UseCase } from '../../platform/use-case.js';
import { PeriodicTask } from '../../platform/periodic-task.js';
import { DUE_PER_PASS, dueBy } from '../../platform/projections/due-queue.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { Mailer } from '../../email/index.js';
import { OptOutQueries } from '../../email-opt-outs/index.js';
import { MerchantDirectory, shareSettings } from '../../merchants/index.js';
import { createLinkWith, ReferralCodes, LinkParameters, ReferralLinkQueries } from '../../referral-links/index.js';
import { WidgetQueries } from '../../widgets/index.js';
import { ShareEvent } from '../domain/share-events.js';
import { permittedMessage } from '../domain/share-message.js';
import { quotaDay, type ShareQuotaCommand, shareQuotaDecider, type ShareQuotaEvent, shareQuotaStream } from '../domain/share-quota.js';
import { composeShareEmail, shareDecider, type ShareRequest, ShareState, shareStream } from '../domain/share.js';
import { ShareQueries } from '../read-models/share-queries.js';
import { emailLinkBase } from '../share-links.js';

/** `channel`: email (the default) sends emails; a social channel has no recipients, emails or reminder. */
export class CreateShareCommand extends UseCase<ShareRequest, number> {}

/** Recipients of a share who have already converted through its code: a port the sales feature answers (bound in src/ports.module.ts). */
export interface ConvertedRecipients {
  converted(merchantId: number, referralCode: string, recipients: string[]): Promise<string[]>;
}
export const CONVERTED_RECIPIENTS = Symbol('CONVERTED_RECIPIENTS');

/** The name a share's emails give for the merchant: where a recipient asks to receive no more of them. */
async function merchantName(merchants: MerchantDirectory, merchantId: number): Promise<string> {
  return (await merchants.byId(merchantId))?.name ?? 'the shop';
}

/**
 * The advocate's message as the share's emails may carry it now: a customer token's share follows
 * the merchant's current message policy (one tightened after the share reaches its reminder too).
 */
async function advocateMessage(merchants: MerchantDirectory, share: NonNullable<ShareState['share']>, message: string | null): Promise<string | null> {
  if (share.origin !== 'customer_token') return message;
  const merchant = await merchants.doc(share.merchantId);
  return permittedMessage(merchant ? shareSettings(merchant).customer_share_message_policy : 'off', message);
}

/** An address, not a value erased since (null). */
const isAddress = (value: string | null): value is string => typeof value === 'string';

@Injectable()
export class ShareMailer {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly optOuts: OptOutQueries,
    private readonly widgets: WidgetQueries,
    private readonly merchants: MerchantDirectory,
    private readonly mailer: Mailer,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async state(shareId: number): Promise<ShareState> {
    return fold(shareDecider, (await this.store.readStream(shareStream(shareId))) as unknown as ShareEvent[]);
  }

  /**
   * Sends the share's emails now, unless the merchant asks to be consulted first (a
   * share-instructions URL): then ShareInstructions asks, and the share waits for the answer.
   */
  async dispatch(shareId: number): Promise<void> {
    const state = await this.state(shareId);
    if (!state.share || state.emailsDecided) return;
    if (await this.instructionsUrl(state.share.merchantId)) {
      for (const listener of this.waitingListeners) listener();
      return;
    }
    await this.send(shareId);
  }

  private readonly waitingListeners: (() => void)[] = [];
  private instructionsUrl: (merchantId: number) => Promise<string | null> = async () => null;

  /** The share-instructions flow plugs in here: where to ask, and who to wake when a share waits. */
  consultWith(url: (merchantId: number) => Promise<string | null>, onWaiting: () => void): void {
    this.instructionsUrl = url;
    this.waitingListeners.push(onWaiting);
  }

  /** Decides the share's emails (once), optionally with the merchant's replacement message, and hands them to the mailer. */
  async send(shareId: number, messageOverride?: string | null): Promise<void> {
    const state = await this.state(shareId);
    const share = state.share;
    if (!share || state.emailsDecided) return;
    const widget = await this.widgets.byId(share.merchantId, share.widgetId);
    // An erased advocate sends nothing, and an erased recipient is sent nothing (docs/privacy.md).
    const recipients = share.rewardEmailAddress === null ? [] : share.emailRecipients.filter(isAddress);
    const { allowed, optedOut } = await this.optOuts.partition(share.merchantId, recipients);
    // The merchant's replacement (share instructions) is its own text: no policy applies to it.
    const message = messageOverride === undefined ? await advocateMessage(this.merchants, share, share.message) : messageOverride;
    const link = `${emailLinkBase(this.config)}/${share.referralCode}`;
    const content = composeShareEmail({
      advocate: share.rewardEmailAddress,
      merchantName: await merchantName(this.merchants, share.merchantId),
      widgetName: widget?.settings.name ?? 'an offer',
      message,
      link,
      reminder: false,
    });
    await this.runner.run(
      shareStream(shareId),
      shareDecider,
      {
        type: 'SendShareEmails',
        shareId,
        messages: allowed.map((to) => ({ messageId: randomUUID(), to, ...content })),
        skippedOptedOut: optedOut,
        message,
        queuedFor: this.mailer.queuesFor,
        now: this.clock.now(),
      },
      { metadata: { merchantId: share.merchantId } },
    );
    void this.mailer.kick();
  }
}

@CommandHandler(CreateShareCommand)
export class CreateShareHandler implements ICommandHandler<CreateShareCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly mailer: ShareMailer,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
    private readonly codes: ReferralCodes,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async execute({ input: { limits, ...s } }: CreateShareCommand): Promise<number> {
    const shareId = this.ids.next();
    const now = this.clock.now();
    const channel = s.channel ?? 'email';
    // A social share counts as one recipient: each makes a code kept for ever, so the day's limits bound them too.
    const recipients = channel === 'email' ? s.emailRecipients.length : 1;
    const quota: ShareQuotaCommand = { type: 'ReserveShareRecipients', merchantId: s.merchantId, shareId, customerId: s.customerId, recipients, limits, now };
    const quotaStream = shareQuotaStream(s.merchantId, quotaDay(now));
    // A store without one commit for the plan appends its steps one by one: a refusal is found
    // before the link is appended, so a 429 leaves no code behind (the plan's step still decides).
    if (!this.store.appendMany)
      shareQuotaDecider.decide(quota, fold(shareQuotaDecider, (await this.store.readStream(quotaStream)) as unknown as ShareQuotaEvent[]));
    // Each share gets its own new referral code (spec §1 rule 4); the link and the share are one
    // commit, so a crash never leaves a code whose share does not exist.
    await createLinkWith(
      this.runner,
      this.clock,
      this.codes,
      {
        merchantId: s.merchantId,
        widgetId: s.widgetId,
        linkType: 'share',
        advocateCustomerId: s.customerId,
        advocateEmail: s.rewardEmailAddress,
        shareId,
        reminderEmailId: null,
        linkParameters: s.linkParameters,
        ipAddress: s.ipAddress,
      },
      async (step, referralCode) => {
        // The day's recipients are counted in the share's commit: over a limit, nothing is recorded (429).
        await step(quotaStream, shareQuotaDecider, quota);
        return step(
          shareStream(shareId),
          shareDecider,
          {
            type: 'CreateShare',
            shareId,
            ...s,
            referralCode,
            channel,
            reminderDueAt: s.sendReminder && channel === 'email' ? new Date(now.getTime() + this.config.reminderDelayMs) : null,
            now,
          },
          { likelyNew: true },
        );
      },
    );
    await this.mailer.dispatch(shareId);
    return shareId;
  }
}

/**
 * Sends due reminders. The schedule is in the event store (ReminderEmailScheduled) and the
 * shares read model, rebuilt at start-up, says which are still pending; the share's stream
 * lets each reminder go out once.
 */
@Injectable()
export class ReminderScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task = new PeriodicTask('Reminders', () => this.sendDue());

  constructor(
    private readonly runner: CommandRunner,
    private readonly shares: ShareQueries,
    private readonly shareMailer: ShareMailer,
    private readonly optOuts: OptOutQueries,
    @Inject(CONVERTED_RECIPIENTS) private readonly converted: ConvertedRecipients,
    private readonly links: ReferralLinkQueries,
    private readonly widgets: WidgetQueries,
    private readonly merchants: MerchantDirectory,
    private readonly mailer: Mailer,
    private readonly projections: ProjectionRunner,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
    private readonly codes: ReferralCodes,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(this.projections, this.config.schedulerTickMs);
  }

  /** One pass over the pending reminders; overlapping calls share the pass in progress. */
  tick(): Promise<void> {
    return this.task.tick();
  }

  private async sendDue(): Promise<void> {
    const now = this.clock.now();
    for (const due of await dueBy(this.shares.remindersDue, now, DUE_PER_PASS)) await this.send(due.id, now);
  }

  private async send(shareId: number, now: Date): Promise<void> {
    const state = await this.shareMailer.state(shareId);
    const share = state.share;
    if (!share || state.reminderDone) return;
    // A reminder follows the share's own emails: it waits while the merchant's share instructions
    // are still being asked for, and there is none when they blocked the emails.
    if (!state.emailsDecided) return;
    const meta = { metadata: { merchantId: share.merchantId } };
    if (state.emailsBlocked) {
      await this.runner.run(shareStream(shareId), shareDecider, { type: 'CancelReminder', shareId, reason: 'share_emails_blocked', now }, meta);
      return;
    }
    // A blacklisted code no longer leads to the offer (spec §2.2): the reminder's new code would
    // bring it back to the same recipients, so there is no reminder (un-blacklisting later does not revive it).
    if ((await this.links.byCode(share.merchantId, share.referralCode))?.blacklisted) {
      await this.runner.run(shareStream(shareId), shareDecider, { type: 'CancelReminder', shareId, reason: 'share_code_blacklisted', now }, meta);
      return;
    }
    // An erased advocate's share sends nothing more in their name (docs/privacy.md).
    if (share.rewardEmailAddress === null) {
      await this.runner.run(shareStream(shareId), shareDecider, { type: 'CancelReminder', shareId, reason: 'advocate_erased', now }, meta);
      return;
    }
    // Those the share's emails reached (not who opted out before them, nor who was erased since), less who converted or opted out since.
    const emailedTo = state.emailedTo.filter(isAddress);
    const converted = new Set((await this.converted.converted(share.merchantId, share.referralCode, emailedTo)).map((e) => e.toLowerCase()));
    const { allowed } = await this.optOuts.partition(
      share.merchantId,
      emailedTo.filter((e) => !converted.has(e.toLowerCase())),
    );
    if (allowed.length === 0) {
      await this.runner.run(shareStream(shareId), shareDecider, { type: 'CancelReminder', shareId, reason: 'no_recipients', now }, meta);
      return;
    }
    const reminderEmailId = this.ids.next();
    const widget = await this.widgets.byId(share.merchantId, share.widgetId);
    // The reminder's own link and the reminder are one commit: a crash never leaves a code whose
    // reminder does not exist (and a reminder sent again under another code after the restart).
    const sent = await unlessAbandoned(
      createLinkWith(
        this.runner,
        this.clock,
        this.codes,
        {
          merchantId: share.merchantId,
          widgetId: share.widgetId,
          linkType: 'reminder_email',
          advocateCustomerId: share.customerId,
          advocateEmail: share.rewardEmailAddress,
          shareId,
          reminderEmailId,
          linkParameters: share.linkParameters as LinkParameters | null,
          ipAddress: share.ipAddress,
        },
        async (step, referralCode) => {
          const content = composeShareEmail({
            advocate: share.rewardEmailAddress,
            merchantName: await merchantName(this.merchants, share.merchantId),
            widgetName: widget?.settings.name ?? 'an offer',
            // The message the share's emails carried: the merchant's replacement, when it gave one.
            message: state.sentMessage === share.message ? await advocateMessage(this.merchants, share, state.sentMessage) : state.sentMessage,
            link: `${emailLinkBase(this.config)}/${referralCode}`,
            reminder: true,
          });
          const messages = allowed.map((to) => ({ messageId: randomUUID(), to, ...content }));
          const decided = await step(shareStream(shareId), shareDecider, {
            type: 'SendReminder',
            shareId,
            reminderEmailId,
            referralCode,
            messages,
            queuedFor: this.mailer.queuesFor,
            now,
          });
          // Sent already (another pass got there first): nothing of this plan is committed, the link included.
          if (decided.length === 0) throw new PlanAbandoned();
        },
      ),
    );
    if (sent) void this.mailer.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }
}
