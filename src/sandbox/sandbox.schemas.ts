/** Response schema of the admin sandbox routes (sandbox.module.ts). */
import { arrayOf, dateTime, int, object, str } from '../platform/http/response-schemas.js';

export const SANDBOX = object({
  base_paths: arrayOf(str(), 'Where the sandbox serves the v1 and v2 APIs (`/sandbox/v1`, `/sandbox/v2`)'),
  merchant_id: int("The sample merchant's id"),
  access_key: str("The sample merchant's access key"),
  secret_key: str("The sample merchant's secret key: public by design (README), it opens the sandbox only"),
  publishable_key: str("The sample merchant's publishable key, for the sandbox's browser routes (docs/embedding.md)"),
  generation: int('The generation serving now: 1 the first since the process started, one more at each reset (0 while none could be built)', { minimum: 0 }),
  next_reset_at: dateTime('When the sandbox next returns to its baseline (every SANDBOX_RESET_INTERVAL_MS)'),
});
