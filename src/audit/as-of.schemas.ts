/** Response schema of as-of.controller.ts: a point-in-time read (docs/audit.md, "Point-in-time reads"). */
import { dateTime, int, nullable, object, str } from '../platform/http/response-schemas.js';

export const AS_OF_ANSWER = object({
  as_of: object(
    {
      position: str('The global position reached: the last event included, as a decimal string (positions can exceed 2^53)', { pattern: '^[0-9]+$' }),
      last_event_at: nullable(dateTime('When that event was recorded; null when no event was included')),
      at: dateTime('The time asked for; present only when the read was asked by `at`'),
    },
    { optional: ['at'] },
  ),
  path: str('The v1 or v2 GET path answered, with its query, as the router saw it'),
  status: int('The status the route answered at that point (a 404 when the record did not exist yet)'),
  body: {
    oneOf: [
      {
        type: 'object',
        additionalProperties: true,
        description: "The route's JSON answer at that point, its error bodies included; a next_page leads to the same point in time",
      },
      { type: 'string', description: 'An answer that was not JSON, as text' },
    ],
  },
});
