/** Feeds a v1 Customer's recent_shares from the shares read model. */
import { Injectable } from '@nestjs/common';
import { Links } from '../../platform/http/links.js';
import { type RecentActivity, CustomerDoc } from '../../customers/index.js';
import { MerchantDirectory } from '../../merchants/index.js';
import { WidgetQueries } from '../../widgets/index.js';
import { v1ShareExcerpt } from '../http/share.presenters.js';
import { ShareQueries } from './share-queries.js';

const RECENT_LIMIT = 10;

@Injectable()
export class ShareActivity implements RecentActivity {
  constructor(
    private readonly shares: ShareQueries,
    private readonly widgets: WidgetQueries,
    private readonly merchants: MerchantDirectory,
  ) {}

  async recent(customer: CustomerDoc, links: Links): Promise<unknown[]> {
    const merchant = await this.merchants.byId(customer.merchant_id);
    const docs = await this.shares.recentOf(customer.merchant_id, customer.id, RECENT_LIMIT);
    const out = [];
    for (const doc of docs) {
      const widget = await this.widgets.byId(doc.merchant_id, doc.widget_id);
      if (widget) out.push(v1ShareExcerpt(doc, widget, customer, links, merchant?.can_see_recipients ?? false));
    }
    return out;
  }
}
