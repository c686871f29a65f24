/** Feeds a v1 Customer's recent_referral_codes from the referral links read model. */
import { Injectable } from '@nestjs/common';
import { Links } from '../../platform/http/links.js';
import { type RecentActivity, CustomerDoc } from '../../customers/index.js';
import { WidgetQueries } from '../../widgets/index.js';
import { v1ReferralCodeExcerpt } from '../http/referral-link.presenters.js';
import { ReferralLinkQueries } from './referral-link-queries.js';

export const RECENT_LIMIT = 10;

@Injectable()
export class ReferralCodeActivity implements RecentActivity {
  constructor(
    private readonly links: ReferralLinkQueries,
    private readonly widgets: WidgetQueries,
  ) {}

  async recent(customer: CustomerDoc, links: Links): Promise<unknown[]> {
    const docs = await this.links.recentOf(customer.merchant_id, customer.id, RECENT_LIMIT);
    return Promise.all(
      docs.map(async (doc) => {
        const widget = await this.widgets.byId(doc.merchant_id, doc.widget_id);
        return v1ReferralCodeExcerpt(doc, links, widget?.settings.destinationUrl ?? null);
      }),
    );
  }
}
