import { DomainEvent } from '../../platform/event-store/event-store.js';

/** One address opted out of every email the service sends for this merchant. */
export type EmailOptedOut = DomainEvent<'EmailOptedOut', { merchantId: number; emailAddress: string; jobId: number | null; optedOutAt: string }>;

export type EmailOptOutRemoved = DomainEvent<'EmailOptOutRemoved', { merchantId: number; emailAddress: string; removedAt: string }>;
