import { DomainEvent } from '../../platform/event-store/event-store.js';

/**
 * One address opted out of every email the service sends for this merchant. `emailKey`: the
 * address's keyed hash (PersonalDataEventStore.emailKey), by which it stays suppressed once the
 * address itself is erased; absent from events recorded before it was kept.
 */
export type EmailOptedOut = DomainEvent<
  'EmailOptedOut',
  { merchantId: number; emailAddress: string; jobId: number | null; optedOutAt: string; emailKey?: string }
>;

export type EmailOptOutRemoved = DomainEvent<'EmailOptOutRemoved', { merchantId: number; emailAddress: string; removedAt: string; emailKey?: string }>;
