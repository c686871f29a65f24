/** Response schemas of share.presenters.ts: v2 Share and ReminderEmail (spec §2.3), v1 ShareExcerpt and reminder email (spec §2.2). */
import { V1_SHARER, EMAIL_RECIPIENTS, V1_SHARE_EXCERPT } from '../../customers/index.js';
import { V1_CAMPAIGN_EXCERPT } from '../../widgets/index.js';
import { apiLink, bool, dateTime, int, LINK_PARAMETERS, nullable, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { SHARE_CHANNELS } from '../domain/share-events.js';

export const V2_SHARE = object(
  {
    id: int(),
    message: nullable(str('The message sent: the advocate’s, or the merchant’s replacement from its share instructions')),
    channel: oneOfStrings(SHARE_CHANNELS),
    widget: apiLink('API link of the widget'),
    ip_address: nullable(str()),
    referral_link: apiLink('API link of the referral link'),
    newsletter_opt_in: bool(),
    send_reminder: bool(),
    customer: nullable(apiLink('API link of the advocate customer, if any')),
    reward_email_address: str('Email address of the advocate'),
    email_recipients: EMAIL_RECIPIENTS,
    link_parameters: LINK_PARAMETERS,
    skipped_recipients_count: nullable(
      int('Recipients not emailed: opted out, or every recipient when the share instructions blocked the emails; null until the emails are decided', {
        minimum: 0,
      }),
    ),
    created_at: dateTime(),
    last_modified_at: dateTime(),
  },
  { optional: ['email_recipients'] },
);

export const V2_REMINDER_EMAIL = object({
  id: int(),
  customer: nullable(apiLink('API link of the advocate customer, if any')),
  widget: apiLink('API link of the widget'),
  share: apiLink('API link of the share reminded of'),
  referral_link: apiLink('API link of the reminder’s own referral link'),
  advocate_email_address: str(),
  email_recipients_count: int('Recipients of the original share', { minimum: 0 }),
  created_at: dateTime(),
  last_modified_at: dateTime(),
});

/** The reminder email of spec §2.2 (inside the referral-code response), with its recipients' count and link. */
export const V1_REMINDER_EMAIL = object({
  id: int(),
  referral_code: str('The reminder’s own referral code'),
  campaign: V1_CAMPAIGN_EXCERPT,
  created_at: dateTime(),
  sharer: V1_SHARER,
  share: V1_SHARE_EXCERPT,
  email_recipients_count: int('Recipients of the original share', { minimum: 0 }),
  detail_uri: apiLink('The v1 reminder email (GET /v1/reminder_emails/{id})'),
});

export { V1_SHARE_EXCERPT };
