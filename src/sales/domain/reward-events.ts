/**
 * Events of rewards (spec §3: approved, rejected). `RewardPending` while a custom validation
 * callback is awaited; the `Manually…` events are an admin's decision, with who and why.
 */
import { DomainEvent } from '../../platform/event-store/event-store.js';

export interface RewardFacts {
  rewardId: number;
  merchantId: number;
  conversionId: number;
  purchaseId: number;
  widgetId: number;
  advocateCustomerId: number | null;
  advocateEmailAddress: string | null;
  rewardType: string;
  amount: number;
}

export type RewardPending = DomainEvent<'RewardPending', RewardFacts & { createdAt: string }>;
export type RewardApproved = DomainEvent<'RewardApproved', RewardFacts & { evaluatedAt: string }>;
/** `note`: the merchant's own words when its validation callback rejected the reward (absent in events before it was kept). */
export type RewardRejected = DomainEvent<'RewardRejected', RewardFacts & { reasons: string[]; note?: string | null; evaluatedAt: string }>;
export type RewardManuallyApproved = DomainEvent<'RewardManuallyApproved', RewardFacts & { by: string; reason: string | null; decidedAt: string }>;
export type RewardManuallyRejected = DomainEvent<'RewardManuallyRejected', RewardFacts & { by: string; reason: string | null; decidedAt: string }>;

export type RewardEvent = RewardPending | RewardApproved | RewardRejected | RewardManuallyApproved | RewardManuallyRejected;
