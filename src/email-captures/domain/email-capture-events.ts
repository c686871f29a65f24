import { DomainEvent } from '../../platform/event-store/event-store.js';

export type EmailCaptured = DomainEvent<
  'EmailCaptured',
  {
    emailCaptureId: number;
    merchantId: number;
    widgetId: number;
    emailAddress: string;
    referralCode: string | null;
    newsletterOptIn: boolean;
    ipAddress: string | null;
    createdAt: string;
  }
>;
