/**
 * Widget variants (v2 "widgets", v1 "campaigns"): what is offered, to whom it is served
 * (group, distribution, champion), and the reward rules the purchases feature enforces.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors.js';

export const OBJECTIVES = ['referral', 'email_capture', 'influencer'] as const;
export type Objective = (typeof OBJECTIVES)[number];

export const REWARD_TYPES = ['percent_discount', 'fixed_cash', 'fixed_points', 'stripe_credit', 'chargebee_credit', 'other'] as const;
export type RewardType = (typeof REWARD_TYPES)[number];

export interface RewardCriteria {
  newCustomersOnly: boolean;
  minimumPurchaseAmount: number | null;
  /** Most rewards one advocate earns on this widget (within the window, if one is set). */
  maxRewardsPerAdvocate: number | null;
  /** Most reward amount one advocate earns on this widget (within the window, if one is set). */
  maxRewardAmountPerAdvocate: number | null;
  /** Rolling window of the caps in days; null = lifetime. */
  capWindowDays: number | null;
}

export interface FraudChecks {
  sameCustomer: boolean;
  sameEmail: boolean;
  similarEmail: boolean;
  sameIp: boolean;
}

export interface WidgetSettings {
  name: string;
  objective: Objective;
  widgetGroupId: string;
  distribution: number;
  published: boolean;
  active: boolean;
  archived: boolean;
  isChampion: boolean;
  /** Null when the variant offers no reward (spec §3: nothing is evaluated then). */
  rewardType: RewardType | null;
  rewardAmount: number | null;
  destinationUrl: string | null;
  rewardCriteria: RewardCriteria;
  fraudChecks: FraudChecks;
  /** Overrides the merchant's custom reward validation URL for this widget. */
  rewardValidationUrl: string | null;
}

export type WidgetCreated = DomainEvent<'WidgetCreated', { widgetId: number; merchantId: number; createdAt: string } & WidgetSettings>;
export type WidgetChanged = DomainEvent<'WidgetChanged', { widgetId: number; merchantId: number; changes: Partial<WidgetSettings>; changedAt: string }>;
export type WidgetEvent = WidgetCreated | WidgetChanged;

export type WidgetCommand =
  | { type: 'CreateWidget'; widgetId: number; merchantId: number; settings: Partial<WidgetSettings> & { name: string }; now: Date }
  | { type: 'ChangeWidget'; widgetId: number; merchantId: number; changes: Partial<WidgetSettings>; now: Date };

export interface WidgetState {
  merchantId: number | null;
  settings: WidgetSettings | null;
}

export const widgetStream = (widgetId: number) => `widget-${widgetId}`;

export const DEFAULT_CRITERIA: RewardCriteria = {
  newCustomersOnly: false,
  minimumPurchaseAmount: null,
  maxRewardsPerAdvocate: null,
  maxRewardAmountPerAdvocate: null,
  capWindowDays: null,
};
export const DEFAULT_FRAUD_CHECKS: FraudChecks = { sameCustomer: true, sameEmail: true, similarEmail: false, sameIp: false };

function checkReward(s: Pick<WidgetSettings, 'rewardType' | 'rewardAmount'>): void {
  if ((s.rewardType === null) !== (s.rewardAmount === null)) {
    throw new BadRequestError([{ property: 'reward_amount', code: 'invalid', message: 'reward_type and reward_amount are set together or both null' }]);
  }
}

export const widgetDecider: Decider<WidgetCommand, WidgetState, WidgetEvent> = {
  initialState: () => ({ merchantId: null, settings: null }),

  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'CreateWidget': {
        if (state.settings) throw new ConflictError([`widget ${command.widgetId} already exists`]);
        const s = command.settings;
        const settings: WidgetSettings = {
          name: s.name,
          objective: s.objective ?? 'referral',
          widgetGroupId: s.widgetGroupId ?? String(command.widgetId),
          distribution: s.distribution ?? 100,
          published: s.published ?? false,
          active: s.active ?? true,
          archived: s.archived ?? false,
          isChampion: s.isChampion ?? false,
          rewardType: s.rewardType ?? null,
          rewardAmount: s.rewardAmount ?? null,
          destinationUrl: s.destinationUrl ?? null,
          rewardCriteria: { ...DEFAULT_CRITERIA, ...s.rewardCriteria },
          fraudChecks: { ...DEFAULT_FRAUD_CHECKS, ...s.fraudChecks },
          rewardValidationUrl: s.rewardValidationUrl ?? null,
        };
        checkReward(settings);
        return [{ type: 'WidgetCreated', data: { widgetId: command.widgetId, merchantId: command.merchantId, ...settings, createdAt: at } }];
      }
      case 'ChangeWidget': {
        if (!state.settings || state.merchantId !== command.merchantId) throw new NotFoundError([`widget ${command.widgetId} not found`]);
        const current = state.settings;
        const changes: Partial<WidgetSettings> = {};
        for (const [key, value] of Object.entries(command.changes) as [keyof WidgetSettings, unknown][]) {
          if (value === undefined) continue;
          const merged = key === 'rewardCriteria' || key === 'fraudChecks' ? { ...(current[key] as object), ...(value as object) } : value;
          if (JSON.stringify(merged) !== JSON.stringify(current[key])) (changes as Record<string, unknown>)[key] = merged;
        }
        checkReward({ ...current, ...changes });
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'WidgetChanged', data: { widgetId: command.widgetId, merchantId: command.merchantId, changes, changedAt: at } }];
      }
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WidgetCreated': {
        const { widgetId: _w, merchantId, createdAt: _c, ...settings } = event.data;
        return { merchantId, settings };
      }
      case 'WidgetChanged':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      default:
        return unreachable(event);
    }
  },
};
