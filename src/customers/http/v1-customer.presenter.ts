/** The full v1 Customer (spec §2.2): the excerpt, created_at without zone, recent shares and codes. */
import { Inject, Injectable } from '@nestjs/common';
import { Links } from '../../platform/http/links.js';
import { RECENT_REFERRAL_CODES, RECENT_SHARES, type RecentActivity } from '../read-models/customer-activity.js';
import { CustomerDoc } from '../read-models/customers.projection.js';
import { v1CustomerExcerpt, v1LocalTime } from './customer.presenters.js';

@Injectable()
export class V1CustomerPresenter {
  constructor(
    @Inject(RECENT_SHARES) private readonly shares: RecentActivity,
    @Inject(RECENT_REFERRAL_CODES) private readonly codes: RecentActivity,
  ) {}

  async full(doc: CustomerDoc, links: Links) {
    const [recentShares, recentReferralCodes] = await Promise.all([this.shares.recent(doc, links), this.codes.recent(doc, links)]);
    return {
      ...v1CustomerExcerpt(doc, links),
      created_at: v1LocalTime(doc.created_at),
      recent_shares: recentShares,
      recent_referral_codes: recentReferralCodes,
    };
  }
}
