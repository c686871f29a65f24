/** v2 Share and ReminderEmail (spec §2.3), v1 ShareExcerpt (spec §2.2). */
import { Links } from '../../platform/http/links.js';
import { CustomerDoc, v1Sharer, V1Embeds } from '../../customers/index.js';
import { v1CampaignExcerpt, WidgetDoc } from '../../widgets/index.js';
import { ReminderEmailDoc, ShareDoc } from '../read-models/shares.projection.js';

export function v2Share(doc: ShareDoc, links: Links, canSeeRecipients: boolean) {
  return {
    id: doc.id,
    message: doc.message,
    channel: doc.channel,
    widget: links.v2('widgets', doc.widget_id),
    ip_address: doc.ip_address,
    referral_link: links.v2('referral_links', doc.referral_code),
    newsletter_opt_in: doc.newsletter_opt_in,
    send_reminder: doc.send_reminder,
    customer: doc.customer_id !== null ? links.v2('customers', doc.customer_id) : null,
    reward_email_address: doc.reward_email_address,
    ...(canSeeRecipients ? { email_recipients: doc.email_recipients } : {}),
    link_parameters: doc.link_parameters ? JSON.stringify(doc.link_parameters) : null,
    // Beyond the spec's fields: recipients skipped because they opted out (null until the emails are decided).
    skipped_recipients_count: doc.skipped_recipients_count,
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
  };
}

export function v2ReminderEmail(doc: ReminderEmailDoc, links: Links) {
  return {
    id: doc.id,
    customer: doc.customer_id !== null ? links.v2('customers', doc.customer_id) : null,
    widget: links.v2('widgets', doc.widget_id),
    share: links.v2('shares', doc.share_id),
    referral_link: links.v2('referral_links', doc.referral_code),
    advocate_email_address: doc.advocate_email_address,
    email_recipients_count: doc.email_recipients_count,
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
  };
}

export function v1ShareExcerpt(doc: ShareDoc, widget: WidgetDoc | null, customer: CustomerDoc | null, links: Links, canSeeRecipients: boolean) {
  return {
    id: doc.id,
    referral_code: doc.referral_code,
    // "text entered by the advocate" (spec §2.2), not the merchant's replacement the emails carried.
    message: { id: null, content: doc.advocate_message === undefined ? doc.message : doc.advocate_message, network: doc.channel },
    campaign: widget ? v1CampaignExcerpt(widget) : null,
    ip_address: doc.ip_address,
    newsletter_opt_in: doc.newsletter_opt_in,
    send_reminder: doc.send_reminder,
    created_at: doc.created_at,
    detail_uri: links.v1('shares', doc.id),
    ...(canSeeRecipients ? { email_recipients: doc.email_recipients } : {}),
    sharer: v1Sharer(customer, doc.reward_email_address, links),
  };
}

/** v1 Share: the ShareExcerpt (spec §2.2) of its campaign and sharer. */
export async function v1Share(doc: ShareDoc, embeds: V1Embeds, canSeeRecipients: boolean) {
  return v1ShareExcerpt(doc, await embeds.widget(doc.widget_id), await embeds.customerDoc(doc.customer_id), embeds.links, canSeeRecipients);
}

/** v1 reminder email (spec §2.2, inside the referral-code response), with its link and count of recipients. */
export async function v1ReminderEmail(doc: ReminderEmailDoc, share: ShareDoc, embeds: V1Embeds, canSeeRecipients: boolean) {
  const shareExcerpt = await v1Share(share, embeds, canSeeRecipients);
  return {
    id: doc.id,
    referral_code: doc.referral_code,
    campaign: await embeds.campaign(doc.widget_id),
    created_at: doc.created_at,
    sharer: shareExcerpt.sharer,
    share: shareExcerpt,
    email_recipients_count: doc.email_recipients_count,
    detail_uri: embeds.links.v1('reminder_emails', doc.id),
  };
}
