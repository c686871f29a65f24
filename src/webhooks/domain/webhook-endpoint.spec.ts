import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import { WebhookEndpointCreated, subscribesTo, webhookEndpointDecider } from './webhook-endpoint.js';

const now = new Date('2026-05-01T08:00:00.000Z');
const created: WebhookEndpointCreated = {
  type: 'WebhookEndpointCreated',
  data: { endpointId: 4, merchantId: 1, url: 'https://shop.example/hooks', events: null, createdAt: now.toISOString() },
};

describe('webhook endpoint decider', () => {
  it('creates an endpoint for every kind when no kinds are given', () => {
    given(webhookEndpointDecider, [])
      .when({ type: 'CreateWebhookEndpoint', endpointId: 4, merchantId: 1, url: 'https://shop.example/hooks', events: null, now })
      .then([created]);
  });

  it('keeps the kinds in a canonical order', () => {
    const [event] = given(webhookEndpointDecider, [])
      .when({
        type: 'CreateWebhookEndpoint',
        endpointId: 4,
        merchantId: 1,
        url: 'https://shop.example/hooks',
        events: ['reward.rejected', 'share.created'],
        now,
      })
      .events();
    expect(event.type === 'WebhookEndpointCreated' && event.data.events).toEqual(['share.created', 'reward.rejected']);
  });

  it.each([
    ['an unknown kind', 'https://shop.example/hooks', ['share.deleted']],
    ['no kind at all', 'https://shop.example/hooks', []],
    ['a repeated kind', 'https://shop.example/hooks', ['share.created', 'share.created']],
    ['an ftp URL', 'ftp://shop.example/hooks', null],
    ['credentials in the URL', 'https://user:pw@shop.example/hooks', null],
    ['a relative URL', '/hooks', null],
  ])('refuses %s', (_, url, events) => {
    given(webhookEndpointDecider, []).when({ type: 'CreateWebhookEndpoint', endpointId: 4, merchantId: 1, url, events, now }).thenThrows(BadRequestError);
  });

  it('records only what changed, and nothing when nothing did', () => {
    given(webhookEndpointDecider, [created])
      .when({ type: 'ChangeWebhookEndpoint', endpointId: 4, merchantId: 1, url: 'https://shop.example/hooks', events: ['conversion.created'], now })
      .then([
        {
          type: 'WebhookEndpointChanged',
          data: { endpointId: 4, merchantId: 1, changes: { events: ['conversion.created'] }, changedAt: now.toISOString() },
        },
      ]);
    given(webhookEndpointDecider, [created]).when({ type: 'ChangeWebhookEndpoint', endpointId: 4, merchantId: 1, events: null, now }).then([]);
  });

  it("treats another merchant's endpoint and a deleted one as not found", () => {
    const deleted = { type: 'WebhookEndpointDeleted' as const, data: { endpointId: 4, merchantId: 1, deletedAt: now.toISOString() } };
    given(webhookEndpointDecider, [created]).when({ type: 'DeleteWebhookEndpoint', endpointId: 4, merchantId: 2, now }).thenThrows(NotFoundError);
    given(webhookEndpointDecider, [created]).when({ type: 'DeleteWebhookEndpoint', endpointId: 4, merchantId: 1, now }).then([deleted]);
    given(webhookEndpointDecider, [created, deleted]).when({ type: 'DeleteWebhookEndpoint', endpointId: 4, merchantId: 1, now }).thenThrows(NotFoundError);
    given(webhookEndpointDecider, [created, deleted])
      .when({ type: 'ChangeWebhookEndpoint', endpointId: 4, merchantId: 1, events: ['share.created'], now })
      .thenThrows(NotFoundError);
  });

  it('subscribes an endpoint without kinds to every kind', () => {
    expect(subscribesTo(null, 'email.opted_out')).toBe(true);
    expect(subscribesTo(['reward.approved'], 'reward.approved')).toBe(true);
    expect(subscribesTo(['reward.approved'], 'reward.rejected')).toBe(false);
  });
});
