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
      // One question per recipient (a share has few): a code's conversions can be many more than
      // any list worth reading (the first 10,000 of them were read, so a friend who converted
      // after them was reminded all the same).
      converted: async (merchantId, referralCode, recipients) => {
        const answers = new Map<string, Promise<boolean>>();
        const convertedOne = (email: string) =>
          this.sales.conversions.findOne({ merchant_id: merchantId, referral_code: referralCode, friend_email_lc: email }).then((c) => c !== null);
        const found = await Promise.all(
          recipients.map((r) => {
            const email = r.toLowerCase();
            let answer = answers.get(email);
            if (!answer) answers.set(email, (answer = convertedOne(email)));
            return answer;
          }),
        );
        return recipients.filter((_, i) => found[i]);
      },
    });
  }
}
