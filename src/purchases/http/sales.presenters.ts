/** v2 Purchase and Conversion (spec §2.3), and the reward record (not shown in the spec). */
import { Links } from '../../platform/http/links.js';
import { ConversionDoc } from '../../conversions/read-models/conversions.projection.js';
import { RewardDoc } from '../../rewards/read-models/rewards.projection.js';
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
