/** The admin views of webhook endpoints, integration settings and deliveries. */
import { WEBHOOK_KINDS } from '../domain/webhook-kinds.js';
import { IntegrationSettingsDoc } from '../../integrations/index.js';
import { WebhookDeliveryDoc } from '../read-models/webhook-deliveries.projection.js';
import { WebhookEndpointDoc } from '../read-models/webhook-endpoints.projection.js';

export function presentEndpoint(doc: WebhookEndpointDoc) {
  return {
    id: doc.id,
    url: doc.url,
    events: doc.events ?? [...WEBHOOK_KINDS],
    all_events: doc.events === null,
    created_at: doc.created_at,
    last_modified_at: doc.last_modified_at,
  };
}

export function presentClientApi(doc: IntegrationSettingsDoc) {
  return {
    share_instructions_url: doc.share_instructions_url,
    reward_validation_url: doc.reward_validation_url,
    last_modified_at: doc.client_api_modified_at,
  };
}

export function presentCustomHeaders(doc: IntegrationSettingsDoc) {
  return { headers: doc.custom_headers, replace_signature: doc.replace_signature, last_modified_at: doc.custom_headers_modified_at };
}

export function presentDelivery(doc: WebhookDeliveryDoc) {
  return {
    id: doc.id,
    endpoint_id: doc.endpoint_id,
    kind: doc.kind,
    event_id: doc.event_id,
    status: doc.status,
    created_at: doc.created_at,
    next_attempt_at: doc.next_attempt_at,
    delivered_at: doc.delivered_at,
    abandoned_at: doc.abandoned_at,
    abandon_reason: doc.abandon_reason,
    attempts: doc.attempts.map((a) => ({
      attempt: a.attempt,
      at: a.at,
      url: a.url,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
      next_attempt_at: a.next_attempt_at,
      ...(a.before_redelivery ? { before_redelivery: true } : {}),
    })),
    payload: doc.payload,
  };
}
