/** v1 POST /referral_codes (spec §4.1, all four rules). */
import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { V1BasicAuthGuard } from '../../platform/auth/guards.js';
import { CurrentMerchant, type MerchantRecord } from '../../platform/auth/principal.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors.js';
import { ApiErrorResponses } from '../../platform/http/error.schemas.js';
import { LinkFactory } from '../../platform/http/links.factory.js';
import { UpsertCustomerCommand, V1CustomerPresenter, CustomerQueries } from '../../customers/index.js';
import { CouponTurns, CouponQueries } from '../../coupons/index.js';
import { v1CampaignExcerpt, WidgetQueries } from '../../widgets/index.js';
import { AssociateCouponCommand, EnsurePersonalLinkCommand } from '../commands/referral-link-commands.js';
import { ReferralLinkQueries } from '../read-models/referral-link-queries.js';
import type { ReferralLinkDoc } from '../read-models/referral-links.projection.js';
import { V1CustomerDto, V1ReferralCodeDto } from './referral-links.dto.js';
import { encodedParameters, v1ReferralCodeExcerpt } from './referral-link.presenters.js';
import { V1_REFERRAL_CODE_RESPONSE } from './v1-referral-code.schemas.js';

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
    private readonly couponTurns: CouponTurns,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Get or create the advocate's referral code for a campaign (customer.id → customer PURL, email only → email PURL), updated with what is new in the body",
  })
  @ApiOkResponse({ description: 'The referral-code response (spec §2.2)', schema: V1_REFERRAL_CODE_RESPONSE })
  @ApiErrorResponses(
    400,
    401,
    [404, 'Unknown campaign.id or coupon_bank_id'],
    [409, 'The coupon code is associated with another referral code, or the coupon bank has no code left'],
  )
  async issue(@CurrentMerchant() merchant: MerchantRecord, @Body() body: V1ReferralCodeDto, @Req() request: FastifyRequest) {
    const accountId = body.customer?.id;
    // Customer data is kept on the customer record, which only an account id makes (spec §1 rule 3):
    // without customer.id it had nowhere to go and was dropped while the answer said 200.
    const customerFields = Object.keys(body.customer ?? {}).filter((field) => field !== 'id' && body.customer![field as keyof V1CustomerDto] !== undefined);
    if (accountId === undefined && customerFields.length > 0) {
      const given = customerFields.map((field) => `customer.${field}`).join(', ');
      throw new BadRequestError([
        { property: 'customer.id', code: 'missing', message: `customer.id is required when other customer fields are given (${given})` },
      ]);
    }
    if (accountId === undefined && body.email === undefined) {
      throw new BadRequestError([{ property: 'customer.id', code: 'missing', message: 'customer.id or email is required' }]);
    }
    if (body.coupon_code !== undefined && body.coupon_bank_id !== undefined) {
      throw new BadRequestError([{ property: 'coupon_bank_id', code: 'invalid', message: 'coupon_code and coupon_bank_id are mutually exclusive' }]);
    }
    // v1 calls a widget variant a campaign (spec §9), in its errors too.
    const widget = await this.widgets.require(merchant.id, Number(body.campaign.id), 'campaign');
    // With a coupon, the merchant's coupon requests take turns (CouponTurns), so that the checks
    // below see every earlier association and a 409 never follows the creation of anything.
    const issueCode = () => this.issueCode(merchant.id, widget.id, body, request.ip ?? null);
    const withCoupon = body.coupon_code !== undefined || body.coupon_bank_id !== undefined;
    const { code, customerId } = withCoupon ? await this.couponTurns.take(merchant.id, issueCode) : await issueCode();
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

  /** The coupon checks (rule 3; their 409s come before any write), the customer (§1 rule 3), the link, the coupon association. */
  private async issueCode(
    merchantId: number,
    widgetId: number,
    body: V1ReferralCodeDto,
    ipAddress: string | null,
  ): Promise<{ code: string; customerId: number | undefined }> {
    const accountId = body.customer?.id;
    let bankId: number | undefined;
    let couponCode: string | undefined;
    if (body.coupon_code !== undefined) {
      const coupon = await this.coupons.byCode(merchantId, body.coupon_code);
      if (!coupon)
        throw new BadRequestError([
          { property: 'coupon_code', code: 'invalid', message: `coupon code ${body.coupon_code} is not in any of your coupon banks` },
        ]);
      bankId = coupon.bank_id;
      // The bank knows the coupon by its own code, which the one given may name in another case.
      couponCode = coupon.code;
      if (coupon.referral_code !== null && coupon.referral_code !== (await this.existingCode(merchantId, widgetId, accountId, body.email))?.code) {
        throw new ConflictError([`coupon code ${body.coupon_code} is already associated with another referral code`]);
      }
    } else if (body.coupon_bank_id !== undefined) {
      const bank = await this.coupons.bank(merchantId, Number(body.coupon_bank_id));
      // An unknown id named in a body is 404, as the campaign's is (docs/api-decisions.md, Errors).
      if (!bank) throw new NotFoundError([`coupon bank ${Number(body.coupon_bank_id)} not found`]);
      bankId = bank.id;
      if (
        bank.assigned_count >= bank.codes_count &&
        !(await this.holdsCodeOf(bank.id, merchantId, await this.existingCode(merchantId, widgetId, accountId, body.email)))
      ) {
        throw new ConflictError([`coupon bank ${bank.id} has no available code`]);
      }
    }
    let customerId: number | undefined;
    if (accountId !== undefined) {
      const c = body.customer!;
      ({ customerId } = await this.commands.execute(
        new UpsertCustomerCommand({
          merchantId,
          accountId,
          fields: {
            email: c.email,
            firstName: c.first_name,
            lastName: c.last_name,
            stripeCustomerId: c.stripe_customer_id,
            chargebeeCustomerId: c.chargebee_customer_id,
          },
        }),
      ));
    }
    // The body's address (rule 3: "a customer email is recommended for reward distribution") is set on the
    // link; the stored customer's is only a new link's default, so asking again without one changes nothing.
    const advocateEmail = body.email ?? body.customer?.email ?? null;
    const defaultAdvocateEmail =
      advocateEmail === null && customerId !== undefined ? ((await this.customers.byId(merchantId, customerId))?.email ?? null) : null;
    const { code } = await this.commands.execute(
      new EnsurePersonalLinkCommand({
        merchantId,
        widgetId,
        advocate: customerId !== undefined ? { customerId } : { email: body.email! },
        advocateEmail,
        defaultAdvocateEmail,
        linkParameters: body.parameters,
        ipAddress,
      }),
    );
    if (bankId !== undefined) await this.commands.execute(new AssociateCouponCommand({ merchantId, referralCode: code, bankId, couponCode }));
    return { code, customerId };
  }

  /*
   * The helpers of the coupon checks, which run before the customer and the link are written so
   * that a 409 changes nothing (the coupon bank's own decision checks again when it assigns).
   */

  /** The advocate's PURL for this campaign (made by this route, else a vanity one), if the body names an advocate who has one. */
  private async existingCode(merchantId: number, widgetId: number, accountId: string | undefined, email: string | undefined): Promise<ReferralLinkDoc | null> {
    let advocate: { customerId: number } | { email: string } = { email: email! };
    if (accountId !== undefined) {
      const customer = await this.customers.byAccountId(merchantId, accountId);
      if (!customer) return null;
      advocate = { customerId: customer.id };
    }
    return (await this.linksRead.personalLinkOf(merchantId, widgetId, advocate)) ?? this.linksRead.personalLinkOf(merchantId, widgetId, advocate, 'vanity');
  }

  /** True when the link already holds a code of this bank (asking again draws no other). */
  private async holdsCodeOf(bankId: number, merchantId: number, link: ReferralLinkDoc | null): Promise<boolean> {
    for (const code of link?.coupon_codes ?? []) if ((await this.coupons.byCode(merchantId, code))?.bank_id === bankId) return true;
    return false;
  }
}
