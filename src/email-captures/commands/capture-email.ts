/**
 * Records one email capture (spec §2.3 EmailCapture): the v2 route and the browser route both
 * come here once they have found the widget the capture is for, each by its own rules.
 */
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { CommandRunner } from '../../platform/command-runner.js';
import { BadRequestError } from '../../platform/errors.js';
import { docKey, ID_SOURCE, type IdSource } from '../../platform/ids.js';
import { READ_STORE, type ReadCollection, type ReadStore } from '../../platform/read-store/read-store.js';
import { ReferralLinkQueries } from '../../referral-links/index.js';
import { emailCaptureDecider, emailCaptureStream } from '../domain/email-capture.js';
import { EmailCaptureDoc, emailCapturesCollection } from '../read-models/email-captures.projection.js';

export interface EmailCaptureInput {
  emailAddress: string;
  /** A referral code of the merchant's; a code that does not exist is a 400. */
  referralCode?: string;
  newsletterOptIn: boolean;
  ipAddress: string | null;
}

@Injectable()
export class EmailCaptureRecorder {
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

  /** Records the capture on `widgetId` (a widget of the merchant's, already checked) and answers it as read back. */
  async capture(merchantId: number, widgetId: number, input: EmailCaptureInput): Promise<EmailCaptureDoc> {
    // Kept as the link's own code, which the one given may name in another case.
    const link = input.referralCode !== undefined ? await this.links.byCode(merchantId, input.referralCode) : null;
    if (input.referralCode !== undefined && !link) {
      throw new BadRequestError([{ property: 'referral_code', code: 'invalid', message: `referral code ${input.referralCode} does not exist` }]);
    }
    const emailCaptureId = this.ids.next();
    await this.runner.run(
      emailCaptureStream(emailCaptureId),
      emailCaptureDecider,
      {
        type: 'CaptureEmail',
        emailCaptureId,
        merchantId,
        widgetId,
        emailAddress: input.emailAddress,
        referralCode: link?.code ?? null,
        newsletterOptIn: input.newsletterOptIn,
        ipAddress: input.ipAddress,
        now: this.clock.now(),
      },
      { metadata: { merchantId } },
    );
    return (await this.captures.get(docKey(emailCaptureId)))!;
  }
}
