/** Feeds a v1 Customer's recent_referral_codes from the referral links read model. */
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Links } from '../../platform/http/links.js';
import { CustomerActivity } from '../../customers/read-models/customer-activity.js';
import { CustomerDoc } from '../../customers/read-models/customers.projection.js';
import { WidgetQueries } from '../../widgets/read-models/widget-queries.js';
import { v1ReferralCodeExcerpt } from '../http/referral-link.presenters.js';
import { ReferralLinkQueries } from './referral-link-queries.js';

export const RECENT_LIMIT = 10;

@Injectable()
export class ReferralCodeActivity implements OnModuleInit {
  constructor(
    private readonly activity: CustomerActivity,
    private readonly links: ReferralLinkQueries,
    private readonly widgets: WidgetQueries,
  ) {}

  onModuleInit(): void {
    this.activity.register({
      recentShares: async () => [],
      recentReferralCodes: async (customer: CustomerDoc, links: Links) => {
        const docs = await this.links.recentOf(customer.merchant_id, customer.id, RECENT_LIMIT);
        return Promise.all(
          docs.map(async (doc) => {
            const widget = await this.widgets.byId(doc.merchant_id, doc.widget_id);
            return v1ReferralCodeExcerpt(doc, links, widget?.settings.destinationUrl ?? null);
          }),
        );
      },
    });
  }
}
