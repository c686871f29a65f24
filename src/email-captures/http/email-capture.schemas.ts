/** Response schema of the v2 EmailCapture (spec §2.3), presented in email-captures.controller.ts. */
import { apiLink, dateTime, int, nullable, object, str } from '../../platform/http/response-schemas.js';

export const V2_EMAIL_CAPTURE = object({
  id: int(),
  widget: apiLink('API link of the widget'),
  referral_link: nullable(apiLink('API link of the referral link the capture names, if any')),
  email_address: str('Captured address'),
  ip_address: nullable(str()),
  created_at: dateTime(),
});
