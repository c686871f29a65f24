/** Response schemas of the probes (health.controller.ts; docs/operations.md, "Probes"). */
import { int, object, oneOfStrings } from '../platform/http/response-schemas.js';

export const HEALTH = object({ status: oneOfStrings(['ok']) });

export const READY = object({
  status: oneOfStrings(['ready']),
  read_models: object({
    lag_events: int('Events recorded that the read models have yet to apply', { minimum: 0 }),
    lag_seconds: { type: 'number', minimum: 0, description: 'How long ago the oldest of them was recorded, in seconds (milliseconds precision)' },
  }),
});
