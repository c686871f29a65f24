/**
 * A merchant's webhook endpoint: where webhooks go and which kinds it wants, in the stream
 * `webhook-endpoint-<endpointId>`. `events: null` means every kind, including kinds added
 * later. Pure: the private-address check (DNS) happens in the command handler before this runs.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { ConflictError, NotFoundError, invalid } from '../../platform/errors.js';
import { WEBHOOK_KINDS, WebhookKind, isWebhookKind } from './webhook-kinds.js';
import { checkWebhookUrl } from '../../integrations/index.js';

export const webhookEndpointStream = (endpointId: number) => `webhook-endpoint-${endpointId}`;

export interface WebhookEndpointSettings {
  url: string;
  /** Kinds in canonical order, or null for every kind. */
  events: WebhookKind[] | null;
}

export type WebhookEndpointCreated = DomainEvent<
  'WebhookEndpointCreated',
  { endpointId: number; merchantId: number; createdAt: string } & WebhookEndpointSettings
>;
export type WebhookEndpointChanged = DomainEvent<
  'WebhookEndpointChanged',
  { endpointId: number; merchantId: number; changes: Partial<WebhookEndpointSettings>; changedAt: string }
>;
export type WebhookEndpointDeleted = DomainEvent<'WebhookEndpointDeleted', { endpointId: number; merchantId: number; deletedAt: string }>;
export type WebhookEndpointEvent = WebhookEndpointCreated | WebhookEndpointChanged | WebhookEndpointDeleted;

export type WebhookEndpointCommand =
  | { type: 'CreateWebhookEndpoint'; endpointId: number; merchantId: number; url: string; events: readonly string[] | null; now: Date }
  | { type: 'ChangeWebhookEndpoint'; endpointId: number; merchantId: number; url?: string; events?: readonly string[] | null; now: Date }
  | { type: 'DeleteWebhookEndpoint'; endpointId: number; merchantId: number; now: Date };

export interface WebhookEndpointState {
  merchantId: number | null;
  settings: WebhookEndpointSettings | null;
  deleted: boolean;
}

/** Known kinds, at least one, no repeats; returned in canonical order. */
export function checkKinds(property: string, kinds: readonly string[] | null): WebhookKind[] | null {
  if (kinds === null) return null;
  const unknown = kinds.filter((k) => !isWebhookKind(k));
  if (unknown.length > 0) {
    throw invalid(property, 'invalid', `${property} has unknown kinds (${unknown.join(', ')}); known: ${WEBHOOK_KINDS.join(', ')}`);
  }
  if (kinds.length === 0) throw invalid(property, 'invalid', `${property} must name at least one kind, or be left out for every kind`);
  if (new Set(kinds).size !== kinds.length) throw invalid(property, 'invalid', `${property} must not repeat a kind`);
  return WEBHOOK_KINDS.filter((k) => kinds.includes(k));
}

/** Whether an endpoint with these settings wants this kind. */
export function subscribesTo(events: readonly WebhookKind[] | null, kind: WebhookKind): boolean {
  return events === null || events.includes(kind);
}

const notFound = (id: number) => new NotFoundError([`webhook endpoint ${id} not found`]);

export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointState, WebhookEndpointEvent> = {
  initialState: () => ({ merchantId: null, settings: null, deleted: false }),

  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'CreateWebhookEndpoint': {
        if (state.settings) throw new ConflictError([`webhook endpoint ${command.endpointId} already exists`]);
        const url = checkWebhookUrl('url', command.url);
        const events = checkKinds('events', command.events);
        return [
          {
            type: 'WebhookEndpointCreated',
            data: { endpointId: command.endpointId, merchantId: command.merchantId, url, events, createdAt: at },
          },
        ];
      }
      case 'ChangeWebhookEndpoint': {
        if (!state.settings || state.deleted || state.merchantId !== command.merchantId) throw notFound(command.endpointId);
        const changes: Partial<WebhookEndpointSettings> = {};
        if (command.url !== undefined && checkWebhookUrl('url', command.url) !== state.settings.url) changes.url = command.url;
        if (command.events !== undefined) {
          const events = checkKinds('events', command.events);
          if (JSON.stringify(events) !== JSON.stringify(state.settings.events)) changes.events = events;
        }
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'WebhookEndpointChanged', data: { endpointId: command.endpointId, merchantId: command.merchantId, changes, changedAt: at } }];
      }
      case 'DeleteWebhookEndpoint':
        if (!state.settings || state.deleted || state.merchantId !== command.merchantId) throw notFound(command.endpointId);
        return [{ type: 'WebhookEndpointDeleted', data: { endpointId: command.endpointId, merchantId: command.merchantId, deletedAt: at } }];
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WebhookEndpointCreated':
        return { merchantId: event.data.merchantId, settings: { url: event.data.url, events: event.data.events }, deleted: false };
      case 'WebhookEndpointChanged':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      case 'WebhookEndpointDeleted':
        return { ...state, deleted: true };
      default:
        return unreachable(event);
    }
  },
};
