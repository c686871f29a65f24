import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { DEFAULT_CRITERIA, DEFAULT_FRAUD_CHECKS, WidgetCreated, widgetDecider } from './widget.js';

const now = new Date('2026-05-01T08:00:00.000Z');
const created: WidgetCreated = {
  type: 'WidgetCreated',
  data: {
    widgetId: 5,
    merchantId: 1,
    name: 'Give $10',
    objective: 'referral',
    widgetGroupId: '5',
    distribution: 100,
    published: false,
    active: true,
    archived: false,
    isChampion: false,
    rewardType: 'fixed_cash',
    rewardAmount: 10,
    destinationUrl: 'https://shop.example/welcome',
    rewardCriteria: DEFAULT_CRITERIA,
    fraudChecks: DEFAULT_FRAUD_CHECKS,
    rewardValidationUrl: null,
    createdAt: now.toISOString(),
  },
};

describe('widget decider', () => {
  it('creates a widget with defaults for everything not given (its own group, 100% distribution)', () => {
    given(widgetDecider, [])
      .when({
        type: 'CreateWidget',
        widgetId: 5,
        merchantId: 1,
        settings: { name: 'Give $10', rewardType: 'fixed_cash', rewardAmount: 10, destinationUrl: 'https://shop.example/welcome' },
        now,
      })
      .then([created]);
  });

  it('refuses a reward type without an amount', () => {
    given(widgetDecider, [])
      .when({ type: 'CreateWidget', widgetId: 5, merchantId: 1, settings: { name: 'x', rewardType: 'fixed_cash' }, now })
      .thenThrows(BadRequestError);
  });

  it('records only changed settings, merging partial criteria', () => {
    given(widgetDecider, [created])
      .when({
        type: 'ChangeWidget',
        widgetId: 5,
        merchantId: 1,
        changes: { published: true, name: 'Give $10', rewardCriteria: { newCustomersOnly: true } as never },
        now,
      })
      .then([
        {
          type: 'WidgetChanged',
          data: {
            widgetId: 5,
            merchantId: 1,
            changes: { published: true, rewardCriteria: { ...DEFAULT_CRITERIA, newCustomersOnly: true } },
            changedAt: now.toISOString(),
          },
        },
      ]);
  });

  it('records nothing when nothing changes', () => {
    given(widgetDecider, [created])
      .when({ type: 'ChangeWidget', widgetId: 5, merchantId: 1, changes: { active: true }, now })
      .then([]);
  });

  it("treats another merchant's widget as not found", () => {
    given(widgetDecider, [created])
      .when({ type: 'ChangeWidget', widgetId: 5, merchantId: 2, changes: { active: false }, now })
      .thenThrows(NotFoundError);
    given(widgetDecider, [])
      .when({ type: 'ChangeWidget', widgetId: 5, merchantId: 1, changes: { active: false }, now })
      .thenThrows(NotFoundError);
  });

  it('lets the reward be removed as a pair', () => {
    given(widgetDecider, [created])
      .when({ type: 'ChangeWidget', widgetId: 5, merchantId: 1, changes: { rewardType: null, rewardAmount: null }, now })
      .then([{ type: 'WidgetChanged', data: { widgetId: 5, merchantId: 1, changes: { rewardType: null, rewardAmount: null }, changedAt: now.toISOString() } }]);
    given(widgetDecider, [created])
      .when({ type: 'ChangeWidget', widgetId: 5, merchantId: 1, changes: { rewardAmount: null }, now })
      .thenThrows(BadRequestError);
  });
});
