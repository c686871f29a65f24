/**
 * A merchant's integration settings, in the stream `merchant-integrations-<merchantId>`: the
 * client-API URLs the service calls (spec §6 rule 2) and the custom headers added to every
 * webhook and client-API request (spec §5.3 rule 4), which may replace the signature headers.
 * Pure; URL reachability (DNS) is checked by the command handler.
 */
import { Decider, unreachable } from '../../platform/decider.js';
import { DomainEvent } from '../../platform/event-store/event-store.js';
import { BadRequestError, ErrorElement } from '../../platform/errors.js';
import { checkWebhookUrl } from './outbound-url.js';

export const integrationSettingsStream = (merchantId: number) => `merchant-integrations-${merchantId}`;

export interface ClientApiSettings {
  shareInstructionsUrl: string | null;
  rewardValidationUrl: string | null;
}

export interface CustomHeaderSettings {
  headers: Record<string, string>;
  /** The custom headers replace the signature headers (X-SERVICE-SIGNATURE[-V2], webhook-signature). */
  replaceSignature: boolean;
}

export type ClientApiConfigured = DomainEvent<'ClientApiConfigured', { merchantId: number; configuredAt: string } & ClientApiSettings>;
export type CustomHeadersConfigured = DomainEvent<'CustomHeadersConfigured', { merchantId: number; configuredAt: string } & CustomHeaderSettings>;
export type IntegrationSettingsEvent = ClientApiConfigured | CustomHeadersConfigured;

export type IntegrationSettingsCommand =
  | ({ type: 'ConfigureClientApi'; merchantId: number; now: Date } & ClientApiSettings)
  | ({ type: 'ConfigureCustomHeaders'; merchantId: number; now: Date } & CustomHeaderSettings);

export interface IntegrationSettingsState {
  clientApi: ClientApiSettings;
  customHeaders: CustomHeaderSettings;
}

export const MAX_CUSTOM_HEADERS = 20;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab: no CR, LF or other control characters, nothing Node would refuse. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * Names the service sets itself or that describe the message framing; a merchant header of the
 * same name would make the request ambiguous or broken.
 */
export const RESERVED_HEADER_NAMES = new Set([
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'user-agent',
  'x-service-signature',
  'x-service-signature-v2',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/** Structured reports for every fault of a custom header set ([] when it is valid). */
export function customHeaderFaults(settings: CustomHeaderSettings): ErrorElement[] {
  const faults: ErrorElement[] = [];
  const entries = Object.entries(settings.headers);
  if (entries.length > MAX_CUSTOM_HEADERS) {
    faults.push({ property: 'headers', code: 'invalid', message: `headers must have at most ${MAX_CUSTOM_HEADERS} entries` });
  }
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const property = `headers.${name}`;
    if (!TOKEN.test(name) || name.length > 100) {
      faults.push({ property, code: 'invalid', message: "a header name must be 1 to 100 HTTP token characters (letters, digits, !#$%&'*+-.^_`|~)" });
      continue;
    }
    const lower = name.toLowerCase();
    if (RESERVED_HEADER_NAMES.has(lower)) faults.push({ property, code: 'invalid', message: `${name} is set by the service and cannot be a custom header` });
    if (seen.has(lower)) faults.push({ property, code: 'invalid', message: `${name} is given twice (header names are case-insensitive)` });
    seen.add(lower);
    if (typeof value !== 'string') faults.push({ property, code: 'wrong_type', message: `${property} must be a string` });
    else if (!FIELD_VALUE.test(value) || value.length > 2000) {
      faults.push({
        property,
        code: 'invalid',
        message: `${property} must be at most 2000 printable ASCII characters (no CR, LF or other control characters)`,
      });
    } else if (value !== value.trim()) {
      // HTTP drops a value's surrounding whitespace: the receiver would see another value than the one stored.
      faults.push({ property, code: 'invalid', message: `${property} must not begin or end with whitespace` });
    }
  }
  if (settings.replaceSignature && entries.length === 0) {
    faults.push({
      property: 'replace_signature',
      code: 'invalid',
      message: 'replace_signature needs at least one custom header to replace the signature with',
    });
  }
  return faults;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const integrationSettingsDecider: Decider<IntegrationSettingsCommand, IntegrationSettingsState, IntegrationSettingsEvent> = {
  initialState: () => ({
    clientApi: { shareInstructionsUrl: null, rewardValidationUrl: null },
    customHeaders: { headers: {}, replaceSignature: false },
  }),

  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'ConfigureClientApi': {
        const settings: ClientApiSettings = {
          shareInstructionsUrl: command.shareInstructionsUrl === null ? null : checkWebhookUrl('share_instructions_url', command.shareInstructionsUrl),
          rewardValidationUrl: command.rewardValidationUrl === null ? null : checkWebhookUrl('reward_validation_url', command.rewardValidationUrl),
        };
        if (sameJson(settings, state.clientApi)) return [];
        return [{ type: 'ClientApiConfigured', data: { merchantId: command.merchantId, ...settings, configuredAt: at } }];
      }
      case 'ConfigureCustomHeaders': {
        const settings: CustomHeaderSettings = { headers: { ...command.headers }, replaceSignature: command.replaceSignature };
        const faults = customHeaderFaults(settings);
        if (faults.length > 0) throw new BadRequestError(faults);
        if (sameJson(settings, state.customHeaders)) return [];
        return [{ type: 'CustomHeadersConfigured', data: { merchantId: command.merchantId, ...settings, configuredAt: at } }];
      }
      default:
        return unreachable(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ClientApiConfigured':
        return { ...state, clientApi: { shareInstructionsUrl: event.data.shareInstructionsUrl, rewardValidationUrl: event.data.rewardValidationUrl } };
      case 'CustomHeadersConfigured':
        return { ...state, customHeaders: { headers: event.data.headers, replaceSignature: event.data.replaceSignature } };
      default:
        return unreachable(event);
    }
  },
};
