/**
 * The composition root's bindings of ports a lower feature declares and a higher one answers, so
 * that imports only ever flow down (docs/architecture.md): a v1 Customer's recent shares and
 * referral codes, and the share recipients who have converted.
 */
import { Global, Module } from '@nestjs/common';
import { RECENT_REFERRAL_CODES, RECENT_SHARES } from './customers/read-models/customer-activity.js';
import { ReferralCodeActivity } from './referral-links/read-models/referral-code-activity.js';
import { ReferralLinksModule } from './referral-links/referral-links.module.js';
import { ConvertedRecipientsFromConversions } from './sales/read-models/converted-recipients.js';
import { SalesModule } from './sales/sales.module.js';
import { CONVERTED_RECIPIENTS } from './shares/commands/share-commands.js';
import { ShareActivity } from './shares/read-models/share-activity.js';
import { SharesModule } from './shares/shares.module.js';

@Global()
@Module({
  imports: [ReferralLinksModule, SharesModule, SalesModule],
  providers: [
    { provide: RECENT_SHARES, useExisting: ShareActivity },
    { provide: RECENT_REFERRAL_CODES, useExisting: ReferralCodeActivity },
    { provide: CONVERTED_RECIPIENTS, useExisting: ConvertedRecipientsFromConversions },
  ],
  exports: [RECENT_SHARES, RECENT_REFERRAL_CODES, CONVERTED_RECIPIENTS],
})
export class PortsModule {}
