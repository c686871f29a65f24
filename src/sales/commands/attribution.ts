/**
 * Matches a purchase to an advocate (spec §4.2 rules): the referral code when given, else the
 * coupon code through the association POST /v1/referral_codes made. A code that attributes to
 * nobody is a reason, kept in the purchase's events.
 */
import { Injectable } from '@nestjs/common';
import { docKey } from '../../platform/ids.js';
import { CouponQueries } from '../../coupons/index.js';
import { ConversionChannel, ConversionSource } from '../domain/conversion-events.js';
import { ReferralLinkQueries, ReferralLinkDoc } from '../../referral-links/index.js';
import { ShareQueries } from '../../shares/index.js';
import { Attribution } from '../domain/purchase.js';

@Injectable()
export class AttributionResolver {
  constructor(
    private readonly links: ReferralLinkQueries,
    private readonly coupons: CouponQueries,
    private readonly shares: ShareQueries,
  ) {}

  /**
   * The referral code takes precedence when it attributes; when it does not (unknown or
   * blacklisted: a stale cookie, a mistyped code), the coupon code is tried, since a coupon given
   * with a purchase is always attempted (spec §4.2). When neither attributes, the referral code's
   * reason is the one kept.
   */
  async resolve(merchantId: number, codes: { referralCode: string | null; couponCode: string | null }, conversionId: number): Promise<Attribution> {
    const { referralCode, couponCode } = codes;
    if (referralCode !== null) {
      const link = await this.links.byCode(merchantId, referralCode);
      const byReferral: Attribution = link
        ? await this.fromLink(merchantId, link, null, conversionId)
        : { kind: 'failed', reason: 'unknown_referral_code', referralCode, couponCode };
      if (byReferral.kind !== 'failed' || couponCode === null) return byReferral;
      const byCoupon = await this.fromCoupon(merchantId, couponCode, conversionId);
      return byCoupon.kind === 'converted' ? byCoupon : { ...byReferral, couponCode };
    }
    if (couponCode !== null) return this.fromCoupon(merchantId, couponCode, conversionId);
    return { kind: 'none' };
  }

  private async fromCoupon(merchantId: number, couponCode: string, conversionId: number): Promise<Attribution> {
    const coupon = await this.coupons.byCode(merchantId, couponCode);
    if (!coupon) return { kind: 'failed', reason: 'unknown_coupon_code', referralCode: null, couponCode };
    const link = coupon.referral_code !== null && coupon.associated ? await this.links.byCode(merchantId, coupon.referral_code) : null;
    if (!link) return { kind: 'failed', reason: 'coupon_not_associated', referralCode: null, couponCode: coupon.code };
    // The conversion names the coupon by its own code (the one given may be in another case), as it names the link.
    return this.fromLink(merchantId, link, coupon.code, conversionId);
  }

  private async fromLink(merchantId: number, link: ReferralLinkDoc, couponCode: string | null, conversionId: number): Promise<Attribution> {
    if (link.blacklisted) return { kind: 'failed', reason: 'blacklisted_referral_code', referralCode: link.code, couponCode };
    let channel: ConversionChannel;
    let source: ConversionSource;
    switch (link.type) {
      case 'share': {
        const share = link.share_id !== null ? await this.shares.shares.get(docKey(link.share_id)) : null;
        channel = share?.channel ?? 'unknown';
        source = { type: 'share', shareId: link.share_id! };
        break;
      }
      case 'reminder_email':
        channel = 'reminder_email';
        source = { type: 'reminder_email', reminderEmailId: link.reminder_email_id! };
        break;
      default:
        channel = 'personal_url';
        source = { type: 'referral_link', code: link.code };
    }
    return {
      kind: 'converted',
      conversion: {
        conversionId,
        widgetId: link.widget_id,
        referralCode: link.code,
        couponCode,
        channel,
        source,
        advocateCustomerId: link.advocate_customer_id,
        advocateEmailAddress: link.advocate_email,
      },
    };
  }
}
