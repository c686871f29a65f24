/**
 * The composition root's bindings of ports a lower feature declares and a higher one answers, so
 * that imports only ever flow down (docs/architecture.md): a v1 Customer's recent shares and
 * referral codes, and the share recipients who have converted.
 */
import { Global, Module } from '@nestjs/common';
import { RECENT_REFERRAL_CODES, RECENT_SHARES } from './customers/index.js';
import { ReferralCodeActivity, ReferralLinksModule } from './referral-links/index.js';
import { ConvertedRecipientsFromConversions, SalesModule } from './sales/index.js';
import { CONVERTED_RECIPIENTS, ShareActivity, SharesModule } from './shares/index.js';

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
