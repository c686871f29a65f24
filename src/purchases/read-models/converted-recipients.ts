/** Tells the reminder scheduler which share recipients have already converted through the share's code. */
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ConvertedRecipients } from '../../shares/commands/share-commands.js';
import { SalesQueries } from './sales-queries.js';

@Injectable()
export class ConvertedRecipientsFromConversions implements OnModuleInit {
  constructor(
    private readonly registry: ConvertedRecipients,
    private readonly sales: SalesQueries,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      converted: async (merchantId, referralCode, recipients) => {
        const conversions = await this.sales.conversions.list({ where: { merchant_id: merchantId, referral_code: referralCode }, limit: 10_000 });
        const friends = new Set(conversions.map((c) => c.friend_email_lc).filter((e): e is string => e !== null));
        return recipients.filter((r) => friends.has(r.toLowerCase()));
      },
    });
  }
}
