/** Tells the reminder scheduler which share recipients have already converted through the share's code. */
import { Injectable } from '@nestjs/common';
import { CustomerQueries } from '../../customers/index.js';
import type { ConvertedRecipients } from '../../shares/index.js';
import { SalesQueries } from './sales-queries.js';

/** Customers of one address looked at (one address is one person's, or a household's). */
const CUSTOMERS_PER_ADDRESS = 20;

@Injectable()
export class ConvertedRecipientsFromConversions implements ConvertedRecipients {
  constructor(
    private readonly sales: SalesQueries,
    private readonly customers: CustomerQueries,
  ) {}

  // One question per recipient (a share has few): a code's conversions can be many more than
  // any list worth reading (the first 10,000 of them were read, so a friend who converted
  // after them was reminded all the same).
  async converted(merchantId: number, referralCode: string, recipients: string[]): Promise<string[]> {
    const answers = new Map<string, Promise<boolean>>();
    const convertedOne = async (email: string) => {
      if (await this.sales.conversions.findOne({ merchant_id: merchantId, referral_code: referralCode, friend_email_lc: email })) return true;
      // A friend who bought as a known customer, the purchase carrying no address of its own:
      // the customers with this address (a few at most) and their conversions through the code.
      const customers = await this.customers.list({ where: { merchant_id: merchantId, email_lc: email }, limit: CUSTOMERS_PER_ADDRESS });
      for (const customer of customers) {
        if (await this.sales.conversions.findOne({ merchant_id: merchantId, referral_code: referralCode, friend_customer_id: customer.id })) return true;
      }
      return false;
    };
    const found = await Promise.all(
      recipients.map((r) => {
        const email = r.toLowerCase();
        let answer = answers.get(email);
        if (!answer) answers.set(email, (answer = convertedOne(email)));
        return answer;
      }),
    );
    return recipients.filter((_, i) => found[i]);
  }
}
