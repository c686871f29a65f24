/**
 * Referral-link use cases. Personal links are claimed per (merchant, widget, advocate) in a
 * claim stream created with "no stream" expected, so the same advocate and widget always get
 * the same code even when requests race; the code itself is unique through its own stream.
 */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner, type PlanStep } from '../../platform/command-runner.js';
import { UseCase, type UseCaseInput } from '../../platform/use-case.js';
import { EVENT_STORE, type EventStore, WrongExpectedRevisionError } from '../../platform/event-store/event-store.js';
import { ConflictError } from '../../platform/errors.js';
import { PERSONAL_DATA, type PersonalDataEventStore } from '../../platform/personal-data/index.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { type CouponAssigned, type CouponBankCommand, couponBankDecider, couponBankStream, CouponQueries } from '../../coupons/index.js';
import { ReferralLinkQueries } from '../read-models/referral-link-queries.js';
import { ReferralCodes } from './referral-codes.js';
import {
  LinkType,
  PersonalLinkClaimed,
  personalLinkClaimStream,
  type PersonalLinkRequest,
  type ReferralLinkCommand,
  referralLinkDecider,
  referralLinkStream,
} from '../domain/referral-link.js';

export class EnsurePersonalLinkCommand extends UseCase<PersonalLinkRequest, { code: string; created: boolean }> {}

type CreateReferralLink = Extract<ReferralLinkCommand, { type: 'CreateReferralLink' }>;

/** A new link: `code` a chosen one (vanity links, sample data), a random one otherwise. */
type AnyLinkRequest = UseCaseInput<CreateReferralLink, 'code'> & Partial<Pick<CreateReferralLink, 'code'>>;

/** Personal links are made by EnsurePersonalLinkCommand, from the advocate's claim. */
export class CreateReferralLinkCommand extends UseCase<
  AnyLinkRequest & { linkType: Exclude<LinkType, 'customer_personal_url' | 'email_personal_url'> },
  string
> {}

export class ReplaceLinkParametersCommand extends UseCase<UseCaseInput<Extract<ReferralLinkCommand, { type: 'ReplaceLinkParameters' }>>, void> {}

/**
 * The bank's AssignCoupon as asked for (`couponCode` undefined: the bank's next available code);
 * it differs from the link's commands as the link's RecordCouponAssociation follows from what the bank hands out.
 */
export class AssociateCouponCommand extends UseCase<UseCaseInput<Extract<CouponBankCommand, { type: 'AssignCoupon' }>>, string> {}

export class SetBlacklistedCommand extends UseCase<UseCaseInput<Extract<ReferralLinkCommand, { type: 'Blacklist' }>>, void> {}

export class RecordClickCommand extends UseCase<UseCaseInput<Extract<ReferralLinkCommand, { type: 'RecordClick' }>>, void> {}

@CommandHandler(CreateReferralLinkCommand)
export class CreateReferralLinkHandler implements ICommandHandler<CreateReferralLinkCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly codes: ReferralCodes,
  ) {}

  async execute({ input: request }: CreateReferralLinkCommand): Promise<string> {
    const create = () => createLink(this.runner, this.clock, this.codes, request);
    // A chosen code (vanity) may not differ in case alone from an existing one.
    return request.code === undefined ? create() : this.codes.chosen(request.code, create);
  }
}

/** Creates a link under a fresh code (or the chosen one); a random code that is taken is drawn again. */
async function createLink(runner: CommandRunner, clock: Clock, codes: ReferralCodes, r: AnyLinkRequest): Promise<string> {
  return (await createLinkWith(runner, clock, codes, r, async () => undefined)).code;
}

/** The code drawn was taken by another link (the link step of the plan refused it). */
class CodeTaken extends Error {}

/**
 * Creates a link and, in the same plan (one commit where the store can), what it belongs to:
 * `with` decides the other streams given the code (a share, a reminder), so that a crash never
 * leaves a link whose share or reminder does not exist. A random code that is taken is drawn
 * again; any other refusal ends it.
 */
export async function createLinkWith<T>(
  runner: CommandRunner,
  clock: Clock,
  codes: ReferralCodes,
  r: AnyLinkRequest,
  with_: (step: PlanStep, code: string) => Promise<T>,
): Promise<{ code: string; value: T }> {
  for (let attempt = 0; ; attempt += 1) {
    const code = r.code ?? (await codes.draw());
    try {
      const { value } = await runner.runTogether(
        async (step) => {
          try {
            await step(
              referralLinkStream(code),
              referralLinkDecider,
              { type: 'CreateReferralLink', ...r, code, now: clock.now() },
              { likelyNew: r.code === undefined },
            );
          } catch (error) {
            throw error instanceof ConflictError && r.code === undefined && attempt < 5 ? new CodeTaken() : error;
          }
          return with_(step, code);
        },
        { metadata: { merchantId: r.merchantId } },
      );
      return { code, value };
    } catch (error) {
      if (!(error instanceof CodeTaken)) throw error;
    }
  }
}

@CommandHandler(EnsurePersonalLinkCommand)
export class EnsurePersonalLinkHandler implements ICommandHandler<EnsurePersonalLinkCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly projections: ProjectionRunner,
    private readonly links: ReferralLinkQueries,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly codes: ReferralCodes,
    @Inject(PERSONAL_DATA) private readonly personalData: PersonalDataEventStore,
  ) {}

  async execute({ input: r }: EnsurePersonalLinkCommand): Promise<{ code: string; created: boolean }> {
    const claimStream = personalLinkClaimStream(
      r.merchantId,
      r.widgetId,
      'customerId' in r.advocate ? r.advocate : { emailKey: this.personalData.emailKey(r.merchantId, r.advocate.email) },
    );
    const linkType: LinkType = 'customerId' in r.advocate ? 'customer_personal_url' : 'email_personal_url';
    const advocateCustomerId = 'customerId' in r.advocate ? r.advocate.customerId : null;
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const [claim] = (await this.store.readStream(claimStream)) as unknown as { data: PersonalLinkClaimed['data'] }[];
      if (!claim) {
        // The advocate's code for this widget (spec §4.1 rule 1; "a PURL always has the same
        // referral code"): a vanity PURL an admin made for them, else a new one.
        const vanity = await this.links.personalLinkOf(r.merchantId, r.widgetId, r.advocate, 'vanity');
        const code = vanity?.code ?? (await this.codes.draw());
        try {
          const event: PersonalLinkClaimed = {
            type: 'PersonalLinkClaimed',
            data: { merchantId: r.merchantId, widgetId: r.widgetId, code, claimedAt: this.clock.now().toISOString() },
          };
          await this.store.append(claimStream, [{ ...event, metadata: { merchantId: r.merchantId } }], 'no_stream');
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError) continue; // another request claimed it first: use theirs
          throw error;
        }
        continue;
      }
      const code = claim.data.code;
      const existing = await this.store.readStream(referralLinkStream(code));
      if (existing.length === 0) {
        // First request for this advocate (or one that crashed after claiming): create the link.
        try {
          await createLink(this.runner, this.clock, this.codes, {
            merchantId: r.merchantId,
            widgetId: r.widgetId,
            ipAddress: r.ipAddress,
            code,
            linkType,
            advocateCustomerId,
            advocateEmail: r.advocateEmail ?? r.defaultAdvocateEmail ?? null,
            shareId: null,
            reminderEmailId: null,
            linkParameters: r.linkParameters ?? null,
          });
          return { code, created: true };
        } catch (error) {
          if (error instanceof ConflictError) continue; // a racing request created it: update instead
          throw error;
        }
      }
      if (r.linkParameters !== undefined) {
        await this.runner.run(
          referralLinkStream(code),
          referralLinkDecider,
          {
            type: 'ReplaceLinkParameters',
            code,
            merchantId: r.merchantId,
            linkParameters: r.linkParameters,
            now: this.clock.now(),
          },
          { metadata: { merchantId: r.merchantId } },
        );
      }
      if (r.advocateEmail) {
        await this.runner.run(
          referralLinkStream(code),
          referralLinkDecider,
          {
            type: 'SetAdvocateEmail',
            code,
            merchantId: r.merchantId,
            advocateEmail: r.advocateEmail,
            now: this.clock.now(),
          },
          { metadata: { merchantId: r.merchantId } },
        );
      }
      // The link may have just been created by a concurrent request still waiting for the read
      // models itself: the caller reads it back, so wait until they show it.
      await this.projections.waitFor(existing[existing.length - 1].position);
      return { code, created: false };
    }
    throw new ConflictError(['the referral link was changed concurrently; try again']);
  }
}

@CommandHandler(ReplaceLinkParametersCommand)
export class ReplaceLinkParametersHandler implements ICommandHandler<ReplaceLinkParametersCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: ReplaceLinkParametersCommand): Promise<void> {
    await this.runner.run(
      referralLinkStream(c.code),
      referralLinkDecider,
      { type: 'ReplaceLinkParameters', ...c, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId } },
    );
  }
}

@CommandHandler(AssociateCouponCommand)
export class AssociateCouponHandler implements ICommandHandler<AssociateCouponCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly coupons: CouponQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The bank hands the code out (its stream serialises that) and the link records it, in one
   * commit where the store can: a crash never leaves a code handed out but held by no link.
   */
  async execute({ input: c }: AssociateCouponCommand): Promise<string> {
    const { value } = await this.runner.runTogether(
      async (step) => {
        const drawn = (await step(couponBankStream(c.bankId), couponBankDecider, { type: 'AssignCoupon', ...c, now: this.clock.now() }))
          .map((e) => e.data)
          .find((data): data is CouponAssigned['data'] => 'couponCode' in data);
        // Nothing drawn: the link already holds one of this bank's codes (recorded again, which is
        // a no-op, or recorded now if a crash before this commit ever separated the two).
        const couponCode = c.couponCode ?? drawn?.couponCode ?? (await this.heldCode(c));
        await step(referralLinkStream(c.referralCode), referralLinkDecider, {
          type: 'RecordCouponAssociation',
          code: c.referralCode,
          merchantId: c.merchantId,
          couponCode,
          couponBankId: c.bankId,
          now: this.clock.now(),
        });
        return couponCode;
      },
      { metadata: { merchantId: c.merchantId } },
    );
    return value;
  }

  private async heldCode(c: AssociateCouponCommand['input']): Promise<string> {
    const held = await this.coupons.coupons.findOne({ merchant_id: c.merchantId, bank_id: c.bankId, referral_code: c.referralCode });
    if (!held) throw new ConflictError([`coupon bank ${c.bankId} changed concurrently; try again`]);
    return held.code;
  }
}

@CommandHandler(SetBlacklistedCommand)
export class SetBlacklistedHandler implements ICommandHandler<SetBlacklistedCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ input: c }: SetBlacklistedCommand): Promise<void> {
    await this.runner.run(
      referralLinkStream(c.code),
      referralLinkDecider,
      { type: 'Blacklist', ...c, now: this.clock.now() },
      { metadata: { merchantId: c.merchantId, actor: 'admin' } },
    );
  }
}

@CommandHandler(RecordClickCommand)
export class RecordClickHandler implements ICommandHandler<RecordClickCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A click answers nobody who reads it back, so it does not wait for the read models. */
  async execute({ input: c }: RecordClickCommand): Promise<void> {
    await this.runner.run(referralLinkStream(c.code), referralLinkDecider, { type: 'RecordClick', ...c, now: this.clock.now() }, { waitForReadModels: false });
  }
}

export const referralLinkCommandHandlers = [
  ReferralCodes,
  CreateReferralLinkHandler,
  EnsurePersonalLinkHandler,
  ReplaceLinkParametersHandler,
  AssociateCouponHandler,
  SetBlacklistedHandler,
  RecordClickHandler,
];
