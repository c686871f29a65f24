/**
 * A share as the merchant's systems see it: in the share.created webhook and in the share
 * instructions client-API callback (docs/webhooks.md), whose answer is read here too. Pure.
 */
import type { ShareCreated } from './share-events.js';

export interface PayloadOptions {
  /** Whether the merchant may see share email recipients (spec §2.2, §2.3); else they are left out. */
  canSeeRecipients: boolean;
}

export function shareData(d: ShareCreated['data'], options: PayloadOptions): Record<string, unknown> {
  return {
    share_id: d.shareId,
    widget_id: d.widgetId,
    customer_id: d.customerId,
    referral_code: d.referralCode,
    channel: d.channel,
    message: d.message,
    reward_email_address: d.rewardEmailAddress,
    ...(d.channel === 'email' && options.canSeeRecipients ? { email_recipients: d.emailRecipients } : {}),
    newsletter_opt_in: d.newsletterOptIn,
    send_reminder: d.sendReminder,
    ip_address: d.ipAddress,
    link_parameters: d.linkParameters,
    created_at: d.createdAt,
  };
}

export interface ShareInstructionsRequest {
  type: 'share_instructions';
  share: Record<string, unknown>;
}

/** Asked before a share's emails are sent; `share` is the same object as in `share.created`. */
export function shareInstructionsRequest(share: ShareCreated['data'], options: PayloadOptions): ShareInstructionsRequest {
  return { type: 'share_instructions', share: shareData(share, options) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type ShareInstructions = { action: 'allow' } | { action: 'block'; reason: string | null } | { action: 'replace_message'; message: string };

/**
 * A 200 answer to share instructions: `{"action": "block", "message"?}` blocks the share's
 * emails, `{"action": "replace_message", "message": "<text>"}` sends them with that message,
 * anything else (`{"action": "allow"}`, an empty body, unknown actions) lets them go unchanged.
 */
export function readShareInstructions(json: unknown): ShareInstructions {
  if (!isObject(json)) return { action: 'allow' };
  if (json.action === 'block') return { action: 'block', reason: typeof json.message === 'string' ? json.message : null };
  if (json.action === 'replace_message' && typeof json.message === 'string' && json.message.trim() !== '') {
    return { action: 'replace_message', message: json.message };
  }
  return { action: 'allow' };
}
