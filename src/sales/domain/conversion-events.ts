/** Events of purchases, attribution and conversions (spec §2.3 Purchase, Conversion). */
import { DomainEvent } from '../../platform/event-store/event-store.js';

export const CONVERSION_CHANNELS = ['email', 'facebook', 'twitter', 'messenger', 'personal_url', 'reminder_email', 'unknown'] as const;
export type ConversionChannel = (typeof CONVERSION_CHANNELS)[number];

/** What brought the friend: a share, a reminder email, or a referral link (PURL). */
export type ConversionSource =
  { type: 'share'; shareId: number } | { type: 'reminder_email'; reminderEmailId: number } | { type: 'referral_link'; code: string };

export type ConversionAttributed = DomainEvent<
  'ConversionAttributed',
  {
    conversionId: number;
    merchantId: number;
    purchaseId: number;
    widgetId: number;
    referralCode: string;
    couponCode: string | null;
    channel: ConversionChannel;
    source: ConversionSource;
    advocateCustomerId: number | null;
    advocateEmailAddress: string | null;
    /** The friend (buyer), when known. */
    friendCustomerId: number | null;
    friendEmailAddress: string | null;
    createdAt: string;
  }
>;
