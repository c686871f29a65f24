/**
 * The excerpts a v1 record embeds where v2 links (spec §2.2: a share carries its CampaignExcerpt,
 * its sharer's CustomerExcerpt; a purchase its Customer). One response looks each widget and
 * customer up once, however many of its records name them.
 */
import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { Links } from '../../platform/http/links.js';
import { v1CampaignExcerpt, WidgetQueries, WidgetDoc } from '../../widgets/index.js';
import { CustomerQueries } from '../read-models/customer-queries.js';
import { CustomerDoc } from '../read-models/customers.projection.js';
import { v1CustomerExcerpt, v1Sharer } from './customer.presenters.js';
import { V1CustomerPresenter } from './v1-customer.presenter.js';

export class V1Embeds {
  private readonly widgetDocs = new Map<number, Promise<WidgetDoc | null>>();
  private readonly customerDocs = new Map<number, Promise<CustomerDoc | null>>();
  private readonly fullCustomers = new Map<number, Promise<unknown>>();

  constructor(
    private readonly merchantId: number,
    readonly links: Links,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly customerPresenter: V1CustomerPresenter,
  ) {}

  widget(id: number): Promise<WidgetDoc | null> {
    let doc = this.widgetDocs.get(id);
    if (!doc) this.widgetDocs.set(id, (doc = this.widgets.byId(this.merchantId, id)));
    return doc;
  }

  customerDoc(id: number | null): Promise<CustomerDoc | null> {
    if (id === null) return Promise.resolve(null);
    let doc = this.customerDocs.get(id);
    if (!doc) this.customerDocs.set(id, (doc = this.customers.byId(this.merchantId, id)));
    return doc;
  }

  /** CampaignExcerpt of a widget variant (null when the record names none). */
  async campaign(id: number | null) {
    const doc = id === null ? null : await this.widget(id);
    return doc ? v1CampaignExcerpt(doc) : null;
  }

  async customerExcerpt(id: number | null) {
    const doc = await this.customerDoc(id);
    return doc ? v1CustomerExcerpt(doc, this.links) : null;
  }

  /** The full v1 Customer (with recent shares and referral codes), built once per customer in a response. */
  customer(id: number | null): Promise<unknown> {
    if (id === null) return Promise.resolve(null);
    let full = this.fullCustomers.get(id);
    if (!full) {
      full = this.customerDoc(id).then((doc) => (doc ? this.customerPresenter.full(doc, this.links) : null));
      this.fullCustomers.set(id, full);
    }
    return full;
  }

  /** SharerExcerpt: the advocate a record is credited to, by customer and reward email. */
  async sharer(customerId: number | null, email: string | null) {
    return v1Sharer(await this.customerDoc(customerId), email, this.links);
  }
}

@Injectable()
export class V1Embedding {
  constructor(
    private readonly linkFactory: LinkFactory,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly customerPresenter: V1CustomerPresenter,
  ) {}

  for(merchantId: number, request: FastifyRequest): V1Embeds {
    return new V1Embeds(merchantId, this.linkFactory.for(request), this.widgets, this.customers, this.customerPresenter);
  }
}
