/** v2 Purchase and Conversion (spec §2.3), the reward record (not shown in the spec), and their v1 records (docs/api-decisions.md). */
import { Links } from '../../platform/http/links.js';
import { V1Embeds } from '../../customers/index.js';
import { v1IncentiveType } from '../../widgets/index.js';
import { ConversionDoc } from '../read-models/conversions.projection.js';
import { RewardDoc } from '../read-models/rewards.projection.js';
import { PurchaseDoc } from '../read-models/purchases.projection.js';

/** Reported as yes/no/unknown, answered as true/false/"unknown" (spec §2.3). */
function newCustomer(value: PurchaseDoc['new_customer']): boolean | 'unknown' {
  return value === 'yes' ? true : value === 'no' ? false : 'unknown';
}

export function v2Purchase(doc: PurchaseDoc, links: Links) {
  return {
    id: doc.id,
    order_id: doc.order_id,
    // Present only when a coupon code was used (spec §2.3).
    ...(doc.coupon_code !== null ? { coupon_code: doc.coupon_code } : {}),
    payment_amount: doc.payment_amount,
    new_customer: newCustomer(doc.new_customer),
    ip_address: doc.ip_address,
    referrer: doc.referrer,
    widget: doc.widget_id !== null ? links.v2('widgets', doc.widget_id) : null,
    email_address: doc.email_address,
    customer: doc.customer_id !== null ? links.v2('customers', doc.customer_id) : null,
    products: doc.products,
    created_at: doc.created_at,
  };
}

export function v2Conversion(doc: ConversionDoc, links: Links) {
  const source =
    doc.source.type === 'share'
      ? links.v2('shares', doc.source.shareId)
      : doc.source.type === 'reminder_email'
        ? links.v2('reminder_emails', doc.source.reminderEmailId)
        : links.v2('referral_links', doc.source.code);
  return {
    id: doc.id,
    widget: links.v2('widgets', doc.widget_id),
    customer: doc.advocate_customer_id !== null ? links.v2('customers', doc.advocate_customer_id) : null,
    purchase: links.v2('purchases', doc.purchase_id),
    advocate_email_address: doc.advocate_email_address,
    channel: doc.channel,
    source,
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
  };
}

export function v2Reward(doc: RewardDoc, links: Links) {
  return {
    id: doc.id,
    conversion: links.v2('conversions', doc.conversion_id),
    widget: links.v2('widgets', doc.widget_id),
    customer: doc.advocate_customer_id !== null ? links.v2('customers', doc.advocate_customer_id) : null,
    advocate_email_address: doc.advocate_email_address,
    reward_type: doc.reward_type,
    amount: doc.amount,
    status: doc.status,
    rejected_reasons: doc.rejected_reasons,
    created_at: doc.created_at,
    evaluated_at: doc.evaluated_at,
  };
}

export function adminReward(doc: RewardDoc, links: Links) {
  return {
    ...v2Reward(doc, links),
    decided_by: doc.decided_by,
    decision_reason: doc.decision_reason,
    validation_attempts: doc.validation_attempts,
    next_validation_at: doc.next_validation_at,
  };
}

/**
 * v1 purchase: the fields of the `purchase` a v1 share carries (spec §2.2), with the full
 * Customer, plus what the v2 record also holds (id, referral code, referrer, campaign) and links.
 */
export async function v1Purchase(doc: PurchaseDoc, embeds: V1Embeds) {
  return {
    id: doc.id,
    order_id: doc.order_id,
    coupon_code: doc.coupon_code,
    referral_code: doc.referral_code,
    date: doc.created_at,
    total: doc.payment_amount,
    new_customer: doc.new_customer ?? 'unknown',
    email: doc.email_address,
    ip_address: doc.ip_address,
    referrer: doc.referrer,
    products: doc.products,
    customer: await embeds.customer(doc.customer_id),
    campaign: await embeds.campaign(doc.widget_id),
    conversion_uri: doc.conversion_id !== null ? embeds.links.v1('conversions', doc.conversion_id) : null,
    detail_uri: embeds.links.v1('purchases', doc.id),
  };
}

/** v1 conversion: its campaign and sharer embedded as a v1 share embeds them, and the purchase it converted. */
export async function v1Conversion(doc: ConversionDoc, purchase: PurchaseDoc, embeds: V1Embeds) {
  const { links } = embeds;
  return {
    id: doc.id,
    referral_code: doc.referral_code,
    coupon_code: doc.coupon_code,
    channel: doc.channel,
    campaign: await embeds.campaign(doc.widget_id),
    sharer: await embeds.sharer(doc.advocate_customer_id, doc.advocate_email_address),
    purchase: await v1Purchase(purchase, embeds),
    share_uri: doc.source.type === 'share' ? links.v1('shares', doc.source.shareId) : null,
    reminder_email_uri: doc.source.type === 'reminder_email' ? links.v1('reminder_emails', doc.source.reminderEmailId) : null,
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
    detail_uri: links.v1('conversions', doc.id),
  };
}

/** v1 reward: the v2 record's decision, with v1's incentive types (as the campaign shows them) and embeds. */
export async function v1Reward(doc: RewardDoc, embeds: V1Embeds) {
  return {
    id: doc.id,
    reward_type: v1IncentiveType(doc.reward_type),
    amount: doc.amount,
    status: doc.status,
    rejected_reasons: doc.rejected_reasons,
    campaign: await embeds.campaign(doc.widget_id),
    sharer: await embeds.sharer(doc.advocate_customer_id, doc.advocate_email_address),
    conversion_uri: embeds.links.v1('conversions', doc.conversion_id),
    created_at: doc.created_at,
    evaluated_at: doc.evaluated_at,
    detail_uri: embeds.links.v1('rewards', doc.id),
  };
}
