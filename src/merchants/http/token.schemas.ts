/** Response schema of v2-tokens.controller.ts: MerchantToken and CustomerToken (spec §2.3). */
import { object, str } from '../../platform/http/response-schemas.js';

export const MERCHANT_TOKEN = object({ token: str('A merchant token (`mt_…`), valid until DELETE /v2/tokens/merchant') });
export const CUSTOMER_TOKEN = object({ token: str('A customer token (`ct_…`), valid for 10 minutes') });
