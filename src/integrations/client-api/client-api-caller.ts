/**
 * The client-API callback (spec §6 rule 2): one signed POST to a merchant URL, answered with
 * what the merchant said. The share and reward flows call it, and retry a failure on the
 * schedule of `retrySchedule` (domain/webhook-delivery.ts) themselves.
 *
 * Signing is the webhooks' (docs/webhooks.md): `X-SERVICE-SIGNATURE`, or for reward validation
 * `X-SERVICE-SIGNATURE-V2` (same HMAC-SHA1), plus the Standard Webhooks headers and the
 * merchant's custom headers. 10 s timeout (WEBHOOK_TIMEOUT_MS), no redirects, public addresses only.
 */
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { MerchantDirectory } from '../../merchants/index.js';
import { CLOCK, type Clock } from '../../platform/clock.js';
import { requestHeaders } from '../domain/signing.js';
import { OutboundHttp, failureReason } from '../outbound/outbound-http.js';
import { IntegrationSettingsQueries } from '../read-models/integration-settings-queries.js';

/** The client-API callbacks (docs/webhooks.md). */
export type ClientApiKind = 'share_instructions' | 'reward_validation';

export type ClientApiResult = { ok: true; status: 200; json: unknown } | { ok: false; status: number | null; error: string | null };

export interface ClientApiCallOptions {
  /**
   * The `webhook-id` of the request; give the same one to every retry of one question (e.g.
   * `reward-<id>`) so the merchant can tell retries apart from new questions. Default: a new UUID.
   */
  id?: string;
}

/** The answer's body as JSON, or null when it is empty or not JSON. */
function parseJson(body: Buffer | null): unknown {
  if (!body || body.length === 0) return null;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}

@Injectable()
export class ClientApiCaller {
  constructor(
    private readonly http: OutboundHttp,
    private readonly merchants: MerchantDirectory,
    private readonly settings: IntegrationSettingsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Success is HTTP 200 only, with the parsed body (`json`: null when empty or not JSON). Any
   * other status, a redirect, a timeout, a refused connection or a refused (private) address is
   * `ok: false` with the status (null when none came) and the reason.
   */
  async call(merchantId: number, kind: ClientApiKind, url: string, body: object, options: ClientApiCallOptions = {}): Promise<ClientApiResult> {
    const merchant = await this.merchants.byId(merchantId);
    if (!merchant) return { ok: false, status: null, error: `merchant ${merchantId} not found` };
    const text = JSON.stringify(body);
    const headers = requestHeaders({
      secretKey: merchant.secret_key,
      id: options.id ?? randomUUID(),
      timestamp: Math.floor(this.clock.now().getTime() / 1000),
      body: text,
      signatureHeader: kind === 'reward_validation' ? 'X-SERVICE-SIGNATURE-V2' : 'X-SERVICE-SIGNATURE',
      custom: await this.settings.customHeaders(merchantId),
    });
    const result = await this.http.post({ url, headers, body: text, read: 'body' });
    const error = failureReason(result);
    if (result.statusCode === 200 && error === null) return { ok: true, status: 200, json: parseJson(result.body) };
    return { ok: false, status: result.statusCode, error: error ?? `unexpected status ${result.statusCode}: only 200 is success` };
  }
}
