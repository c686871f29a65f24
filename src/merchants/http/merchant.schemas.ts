/**
 * Response schemas of admin-merchants.controller.ts: the admin view of a merchant, which never
 * holds the secret key, and the two answers that do (registration and rotation: docs/security.md).
 */
import { arrayOf, bool, dateTime, int, nullable, object, oneOfStrings, str } from '../../platform/http/response-schemas.js';
import { SHARE_MESSAGE_POLICIES } from '../domain/merchant.js';

const identity = {
  id: int('Service-assigned id'),
  name: str(),
  access_key: str('The access key (`ak_…`): v1 Basic user name, and half of POST /v2/tokens/merchant'),
};

const publishableKey = nullable(
  str(
    'The publishable key (`pk_…`): safe in page source, opens the browser routes only (docs/embedding.md); null for a merchant registered before publishable keys until one is rotated in',
  ),
);

export const ADMIN_MERCHANT = object(
  {
    ...identity,
    publishable_key: publishableKey,
    allowed_origins: arrayOf(str(), 'Origins whose pages may call the browser routes (docs/embedding.md); empty: none'),
    can_see_recipients: bool("Whether the merchant's shares show their email recipients (spec §2.2, §2.3)"),
    share_recipients_per_customer_per_day: int('Share email recipients one advocate customer may address per UTC day'),
    share_recipients_per_merchant_per_day: int("Share email recipients of all the merchant's shares per UTC day"),
    customer_share_message_policy: oneOfStrings(
      SHARE_MESSAGE_POLICIES,
      "What the message of a customer token's share may hold: off (dropped), plain (no links or domains), free",
    ),
    attribution_days: int('Days the embedded library keeps the referral code a visitor arrived with (GET /browser/v1/referral_codes/{code})'),
    created_at: dateTime(),
    last_modified_at: dateTime(),
  },
  { description: 'The admin view of a merchant: never its secret key' },
);

export const MERCHANT_WITH_SECRET_KEY = object(
  {
    ...identity,
    secret_key: str('The secret key (`sk_…`): this answer is the only time this key is shown (GET /admin/merchants/{merchant_id} leaves it out)'),
    publishable_key: publishableKey,
  },
  { description: 'A merchant with its secret key, at registration and at each rotation only' },
);

export const MERCHANT_WITH_PUBLISHABLE_KEY = object(
  { ...identity, publishable_key: str('The new publishable key (`pk_…`); the old one no longer opens the browser routes') },
  { description: 'A merchant with its new publishable key' },
);
