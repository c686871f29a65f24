/** The writes of POST /v1|v2/purchases and /conversions, and the filters of their lists: one of each for both versions. */
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type MerchantRecord, type Principal } from '../../platform/auth/principal.js';
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { advocateListFilter } from '../../platform/http/list-query.dto.js';
import { Scalar } from '../../platform/read-store/read-store.js';
import { CustomerQueries } from '../../customers/index.js';
import { WidgetNoun, WidgetQueries } from '../../widgets/index.js';
import { AttributeConversionCommand, RecordPurchaseCommand } from '../commands/purchase-commands.js';
import { ConversionsQueryDto, CreateConversionDto, CreatePurchaseDto, PurchasesQueryDto, RewardsQueryDto } from './purchases.dto.js';
import { normaliseEmail } from '../../email-opt-outs/index.js';

type Filters<T> = Omit<T, 'cursor' | 'limit' | 'from' | 'to'>;

@Injectable()
export class SaleRequests {
  constructor(
    private readonly commands: CommandBus,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
  ) {}

  /** Records the purchase (409 when its order_id is used); its id. `widgetNoun`: what the caller's API version calls the widget in a 404. */
  async recordPurchase(merchant: MerchantRecord, body: CreatePurchaseDto, widgetNoun: WidgetNoun = 'widget'): Promise<number> {
    const customerId = body.customer_id !== undefined ? Number(body.customer_id) : null;
    const widgetId = body.widget_id !== undefined ? Number(body.widget_id) : null;
    if (customerId !== null && !(await this.customers.byId(merchant.id, customerId))) throw new NotFoundError([`customer ${customerId} not found`]);
    if (widgetId !== null) await this.widgets.require(merchant.id, widgetId, widgetNoun);
    return this.commands.execute(
      new RecordPurchaseCommand({
        merchantId: merchant.id,
        orderId: body.order_id,
        paymentAmount: body.payment_amount ?? null,
        newCustomer: body.new_customer ?? null,
        couponCode: body.coupon_code ?? null,
        referralCode: body.referral_code ?? null,
        emailAddress: body.email_address ?? null,
        ipAddress: body.ip_address ?? null,
        referrer: body.referrer ?? null,
        customerId,
        widgetId,
        products: (body.products ?? []).map((p) => ({ sku: p.sku, quantity: p.quantity, price: p.price })),
      }),
    );
  }

  /** Converts an existing purchase by referral or coupon code; the conversion's id. */
  async convert(merchant: MerchantRecord, body: CreateConversionDto): Promise<number> {
    if (body.referral_code === undefined && body.coupon_code === undefined) {
      throw new BadRequestError([{ property: 'referral_code', code: 'missing', message: 'referral_code or coupon_code is required' }]);
    }
    return this.commands.execute(
      new AttributeConversionCommand({
        merchantId: merchant.id,
        purchaseId: Number(body.purchase_id),
        referralCode: body.referral_code ?? null,
        couponCode: body.coupon_code ?? null,
      }),
    );
  }
}

export function purchasesFilter(principal: Principal, query: Filters<PurchasesQueryDto>): Record<string, Scalar> {
  const where = advocateListFilter(principal, query, 'customer_id');
  if (query.order_id !== undefined) where.order_id = query.order_id;
  return where;
}

export function conversionsFilter(principal: Principal, query: Filters<ConversionsQueryDto>): Record<string, Scalar> {
  const where = advocateListFilter(principal, query, 'advocate_customer_id');
  if (query.email_address !== undefined) where.advocate_email_lc = normaliseEmail(query.email_address);
  return where;
}

export function rewardsFilter(principal: Principal, query: Filters<RewardsQueryDto>): Record<string, Scalar> {
  const where = advocateListFilter(principal, query, 'advocate_customer_id');
  if (query.status !== undefined) where.status = query.status;
  return where;
}
