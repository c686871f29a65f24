/** The full v1 Customer (spec §2.2): the excerpt, created_at without zone, recent shares and codes. */
import { Injectable } from '@nestjs/common';
import { Links } from '../../platform/http/links.js';
import { CustomerActivity } from '../read-models/customer-activity.js';
import { CustomerDoc } from '../read-models/customers.projection.js';
import { v1CustomerExcerpt, v1LocalTime } from './customer.presenters.js';

@Injectable()
export class V1CustomerPresenter {
  constructor(private readonly activity: CustomerActivity) {}

  async full(doc: CustomerDoc, links: Links) {
    const { recentShares, recentReferralCodes } = await this.activity.recent(doc, links);
    return {
      ...v1CustomerExcerpt(doc, links),
      created_at: v1LocalTime(doc.created_at),
      recent_shares: recentShares,
      recent_referral_codes: recentReferralCodes,
    };
  }
}
