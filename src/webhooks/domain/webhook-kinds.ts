/**
 * The webhook kinds a merchant can subscribe to, the source events each one is made from, and
 * the payload sent for each (docs/webhooks.md). Pure: the payload is a function of the recorded
 * source event only, so every attempt of a delivery sends the same body.
 */
import {
  type ConversionAttributed,
  type RewardApproved,
  type RewardFacts,
  type RewardManuallyApproved,
  type RewardManuallyRejected,
  type RewardRejected,
} from '../../sales/index.js';
import type { EmailCaptured } from '../../email-captures/index.js';
import type { EmailOptedOut } from '../../email-opt-outs/index.js';
import type { UserDataDeletionCompleted } from '../../privacy/index.js';
import type { RecordedEvent } from '../../platform/event-store/event-store.js';
import { type ShareCreated, type PayloadOptions, shareData } from '../../shares/index.js';

export const WEBHOOK_KINDS = [
  'share.created',
  'email.captured',
  'email.opted_out',
  'conversion.created',
  'reward.approved',
  'reward.rejected',
  'user_data.deleted',
] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

export type WebhookSourceEvent =
  | ShareCreated
  | EmailCaptured
  | EmailOptedOut
  | ConversionAttributed
  | RewardApproved
  | RewardManuallyApproved
  | RewardRejected
  | RewardManuallyRejected
  | UserDataDeletionCompleted;

/** Source event type → webhook kind. Every other event type is not merchant-facing. */
export const KIND_OF_SOURCE: Readonly<Record<WebhookSourceEvent['type'], WebhookKind>> = {
  ShareCreated: 'share.created',
  EmailCaptured: 'email.captured',
  EmailOptedOut: 'email.opted_out',
  ConversionAttributed: 'conversion.created',
  RewardApproved: 'reward.approved',
  RewardManuallyApproved: 'reward.approved',
  RewardRejected: 'reward.rejected',
  RewardManuallyRejected: 'reward.rejected',
  UserDataDeletionCompleted: 'user_data.deleted',
};

export function isWebhookSource(event: RecordedEvent): event is RecordedEvent<WebhookSourceEvent> {
  return Object.prototype.hasOwnProperty.call(KIND_OF_SOURCE, event.type);
}

export function isWebhookKind(value: unknown): value is WebhookKind {
  return typeof value === 'string' && (WEBHOOK_KINDS as readonly string[]).includes(value);
}

/** The merchant a source event belongs to: its metadata, else its data. */
export function merchantOf(event: RecordedEvent<WebhookSourceEvent>): number | undefined {
  const fromMeta = event.metadata.merchantId;
  if (typeof fromMeta === 'number') return fromMeta;
  const fromData = (event.data as { merchantId?: unknown }).merchantId;
  return typeof fromData === 'number' ? fromData : undefined;
}

/** The body of a webhook request (docs/webhooks.md). */
export interface WebhookPayload {
  /** The source event's id: stable across attempts and redeliveries (also `webhook-id`). */
  id: string;
  type: WebhookKind;
  /** When the source event was recorded. */
  created_at: string;
  data: Record<string, unknown>;
}

function rewardData(d: RewardFacts) {
  return {
    reward_id: d.rewardId,
    conversion_id: d.conversionId,
    purchase_id: d.purchaseId,
    widget_id: d.widgetId,
    advocate_customer_id: d.advocateCustomerId,
    advocate_email_address: d.advocateEmailAddress,
    reward_type: d.rewardType,
    amount: d.amount,
  };
}

function conversionSource(s: ConversionAttributed['data']['source']) {
  switch (s.type) {
    case 'share':
      return { type: 'share', share_id: s.shareId };
    case 'reminder_email':
      return { type: 'reminder_email', reminder_email_id: s.reminderEmailId };
    case 'referral_link':
      return { type: 'referral_link', referral_code: s.code };
  }
}

function dataOf(event: WebhookSourceEvent, options: PayloadOptions): Record<string, unknown> {
  switch (event.type) {
    case 'ShareCreated':
      return shareData(event.data, options);
    case 'EmailCaptured': {
      const d = event.data;
      return {
        email_capture_id: d.emailCaptureId,
        widget_id: d.widgetId,
        email_address: d.emailAddress,
        referral_code: d.referralCode,
        newsletter_opt_in: d.newsletterOptIn,
        ip_address: d.ipAddress,
        created_at: d.createdAt,
      };
    }
    case 'EmailOptedOut': {
      const d = event.data;
      return { email_address: d.emailAddress, job_id: d.jobId, opted_out_at: d.optedOutAt };
    }
    case 'ConversionAttributed': {
      const d = event.data;
      return {
        conversion_id: d.conversionId,
        purchase_id: d.purchaseId,
        widget_id: d.widgetId,
        referral_code: d.referralCode,
        coupon_code: d.couponCode,
        channel: d.channel,
        source: conversionSource(d.source),
        advocate_customer_id: d.advocateCustomerId,
        advocate_email_address: d.advocateEmailAddress,
        friend_customer_id: d.friendCustomerId,
        friend_email_address: d.friendEmailAddress,
        created_at: d.createdAt,
      };
    }
    case 'RewardApproved':
      return { ...rewardData(event.data), decision: 'automatic', decided_by: null, reason: null, decided_at: event.data.evaluatedAt };
    case 'RewardManuallyApproved':
      return { ...rewardData(event.data), decision: 'manual', decided_by: event.data.by, reason: event.data.reason, decided_at: event.data.decidedAt };
    // `reasons` holds codes, as the reward's rejected_reasons does; the words of whoever decided
    // (the admin, or the merchant's validation callback) are `reason`, as in reward.approved.
    case 'RewardRejected':
      return {
        ...rewardData(event.data),
        decision: 'automatic',
        decided_by: null,
        reasons: event.data.reasons,
        reason: event.data.note ?? null,
        decided_at: event.data.evaluatedAt,
      };
    case 'RewardManuallyRejected': {
      const d = event.data;
      return { ...rewardData(d), decision: 'manual', decided_by: d.by, reasons: ['manually_rejected'], reason: d.reason, decided_at: d.decidedAt };
    }
    // Names nobody: the merchant matches the job id to its request, and erases the customers named by id in turn.
    case 'UserDataDeletionCompleted': {
      const d = event.data;
      return { user_data_deletion_id: d.jobId, email_addresses_count: d.emailAddressesCount, customer_ids: d.customerIds, completed_at: d.completedAt };
    }
  }
}

export function webhookPayload(event: RecordedEvent<WebhookSourceEvent>, options: PayloadOptions): WebhookPayload {
  const source = { type: event.type, data: event.data } as WebhookSourceEvent;
  return { id: event.id, type: KIND_OF_SOURCE[source.type], created_at: event.createdAt.toISOString(), data: dataOf(source, options) };
}
