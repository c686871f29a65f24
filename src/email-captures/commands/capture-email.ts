/**
 * Records one email capture (spec §2.3 EmailCapture): the v2 route and the browser route both
 * send it once they have found the widget the capture is for, each by its own rules.
 */
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { BadRequestError } from '../../platform/errors.js';
import { docKey, ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { READ_STORE, type ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { UseCase } from '../../platform/use-case.js';
import { ReferralLinkQueries } from '../../referral-links/index.js';
import { emailCaptureDecider, type EmailCaptureRequest, emailCaptureStream } from '../domain/email-capture.js';
import { EmailCaptureDoc, emailCapturesCollection } from '../read-models/email-captures.projection.js';

/** A capture on `widgetId` (a widget of the merchant's, already checked); answered as read back. */
export class CaptureEmailCommand extends UseCase<EmailCaptureRequest, EmailCaptureDoc> {}

@CommandHandler(CaptureEmailCommand)
export class CaptureEmailHandler implements ICommandHandler<CaptureEmailCommand> {
  private readonly captures: ReadCollection<EmailCaptureDoc>;

  constructor(
    @Inject(READ_STORE) readStore: ReadStore,
    private readonly runner: CommandRunner,
    private readonly links: ReferralLinkQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_SOURCE) private readonly ids: IdSource,
  ) {
    this.captures = readStore.collection<EmailCaptureDoc>(emailCapturesCollection);
  }

  async execute(c: CaptureEmailCommand): Promise<EmailCaptureDoc> {
    const { referralCode, ...capture } = c.input;
    // Kept as the link's own code, which the one given may name in another case.
    const link = referralCode !== undefined ? await this.links.byCode(capture.merchantId, referralCode) : null;
    if (referralCode !== undefined && !link) {
      throw new BadRequestError([{ property: 'referral_code', code: 'invalid', message: `referral code ${referralCode} does not exist` }]);
    }
    const emailCaptureId = this.ids.next();
    await this.runner.run(
      emailCaptureStream(emailCaptureId),
      emailCaptureDecider,
      { type: 'CaptureEmail', ...capture, emailCaptureId, referralCode: link?.code ?? null, now: this.clock.now() },
      { metadata: { merchantId: capture.merchantId } },
    );
    return (await this.captures.get(docKey(emailCaptureId)))!;
  }
}
