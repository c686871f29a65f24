/** v1 POST /referral_codes (spec §4.1, all four rules). */
import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V1BasicAuthGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { BadRequestError } from '../../platform/errors.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { UpsertCustomerCommand } from '../../customers/commands/upsert-customer.js';
import { V1CustomerPresenter } from '../../customers/http/v1-customer.presenter.js';
import { CustomerQueries } from '../../customers/read-models/customer-queries.js';
import { CouponQueries } from '../../coupons/read-models/coupon-queries.js';
import { v1CampaignExcerpt } from '../../widgets/http/widget.presenters.js';
import { WidgetQueries } from '../../widgets/read-models/widget-queries.js';
import { AssociateCouponCommand, EnsurePersonalLinkCommand } from '../commands/referral-link-commands.js';
import { ReferralLinkQueries } from '../read-models/referral-link-queries.js';
import { V1ReferralCodeDto } from './referral-links.dto.js';
import { encodedParameters, v1ReferralCodeExcerpt } from './referral-link.presenters.js';

@ApiTags('v1 referral codes')
@ApiBasicAuth('basic')
@UseGuards(V1BasicAuthGuard)
@Controller('v1/referral_codes')
export class V1ReferralCodesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly widgets: WidgetQueries,
    private readonly customers: CustomerQueries,
    private readonly coupons: CouponQueries,
    private readonly linksRead: ReferralLinkQueries,
    private readonly linkFactory: LinkFactory,
    private readonly customerPresenter: V1CustomerPresenter,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Get or create the advocate's referral code for a campaign (customer.id → customer PURL, email only → email PURL), updated with what is new in the body",
  })
  async issue(@CurrentMerchant() merchant: MerchantRecord, @Body() body: V1ReferralCodeDto, @Req() request: FastifyRequest) {
    const accountId = body.customer?.id;
    if (accountId === undefined && body.email === undefined) {
      throw new BadRequestError([{ property: 'customer.id', code: 'missing', message: 'customer.id or email is required' }]);
    }
    if (body.coupon_code !== undefined && body.coupon_bank_id !== undefined) {
      throw new BadRequestError([{ property: 'coupon_bank_id', code: 'invalid', message: 'coupon_code and coupon_bank_id are mutually exclusive' }]);
    }
    const widget = await this.widgets.require(merchant.id, body.campaign.id);
    // Rule 3: the coupon must already be in one of the merchant's banks.
    let bankId: number | undefined;
    if (body.coupon_code !== undefined) {
      const coupon = await this.coupons.byCode(merchant.id, body.coupon_code);
      if (!coupon) throw new BadRequestError([{ property: 'coupon_code', code: 'invalid', message: `coupon code ${body.coupon_code} is not in any of your coupon banks` }]);
      bankId = coupon.bank_id;
    } else if (body.coupon_bank_id !== undefined) {
      if (!(await this.coupons.bank(merchant.id, body.coupon_bank_id))) {
        throw new BadRequestError([{ property: 'coupon_bank_id', code: 'invalid', message: `coupon bank ${body.coupon_bank_id} not found` }]);
      }
      bankId = body.coupon_bank_id;
    }
    // §1 rule 3: an unseen account id creates a customer; a known one is updated.
    let customerId: number | undefined;
    if (accountId !== undefined) {
      const c = body.customer!;
      ({ customerId } = await this.commands.execute(
        new UpsertCustomerCommand(merchant.id, accountId, {
          email: c.email,
          firstName: c.first_name,
          lastName: c.last_name,
          stripeCustomerId: c.stripe_customer_id,
          chargebeeCustomerId: c.chargebee_customer_id,
        }),
      ));
    }
    const advocateEmail = body.email ?? body.customer?.email ?? (customerId !== undefined ? ((await this.customers.byId(merchant.id, customerId))?.email ?? null) : null);
    const { code } = await this.commands.execute(
      new EnsurePersonalLinkCommand({
        merchantId: merchant.id,
        widgetId: widget.id,
        advocate: customerId !== undefined ? { customerId } : { email: body.email! },
        advocateEmail,
        linkParameters: body.parameters,
        ipAddress: request.ip ?? null,
      }),
    );
    if (bankId !== undefined) await this.commands.execute(new AssociateCouponCommand(merchant.id, code, bankId, body.coupon_code));

    const link = await this.linksRead.require(merchant.id, code);
    const links = this.linkFactory.for(request);
    const customer = customerId !== undefined ? await this.customers.byId(merchant.id, customerId) : null;
    return {
      type: link.type,
      ...v1ReferralCodeExcerpt(link, links, widget.settings.destinationUrl),
      share: null,
      reminder_email: null,
      campaign: v1CampaignExcerpt(widget),
      additional_link_parameters: encodedParameters(link),
      customer: customer ? await this.customerPresenter.full(customer, links) : null,
      email: link.advocate_email,
      coupon_codes: link.coupon_codes,
    };
  }
}
