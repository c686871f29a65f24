/** Response schema of presentAuditEvent (audit.controller.ts; docs/audit.md). */
import { dateTime, int, object, str } from '../platform/http/response-schemas.js';

export const AUDIT_EVENT = object({
  id: str('The event id'),
  type: str('The event type'),
  stream: str(),
  revision: int('Its revision in the stream', { minimum: 0 }),
  position: str('Its global position, as a decimal string (positions can exceed 2^53)', { pattern: '^[0-9]+$' }),
  created_at: dateTime('When the event was recorded'),
  data: { type: 'object', additionalProperties: true, description: "The event's data in its own shape, secrets redacted" },
});
