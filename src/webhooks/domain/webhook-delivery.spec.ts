import { NotFoundError } from '../../platform/errors.js';
import { given } from '../../../test/support/decider-spec.js';
import {
  WebhookDeliveryAttempted,
  WebhookDeliveryCommand,
  WebhookDeliveryEvent,
  WebhookDeliveryScheduled,
  webhookDeliveryDecider,
} from './webhook-delivery.js';
import { WebhookPayload } from './webhook-kinds.js';
import { retrySchedule, retryWindowClosed } from '../../integrations/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const t0 = new Date('2026-05-01T08:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const iso = (ms: number) => at(ms).toISOString();

const payload: WebhookPayload = {
  id: '5f0c1c9e-7a51-4a8e-9d59-3b0f6f1f2a10',
  type: 'conversion.created',
  created_at: t0.toISOString(),
  data: { conversion_id: 9 },
};

const scheduled: WebhookDeliveryScheduled = {
  type: 'WebhookDeliveryScheduled',
  data: {
    deliveryId: 7,
    endpointId: 3,
    merchantId: 1,
    kind: 'conversion.created',
    eventId: payload.id,
    payload,
    scheduledAt: t0.toISOString(),
    nextAttemptAt: t0.toISOString(),
  },
};

const attempt = (ms: number, statusCode: number | null, error: string | null = null): WebhookDeliveryCommand => ({
  type: 'RecordAttempt',
  url: 'https://shop.example/hooks',
  statusCode,
  error,
  latencyMs: 12,
  at: at(ms),
  round: 0,
  intervalMs: HOUR,
  windowMs: DAY,
});

const attempted = (n: number, ms: number, statusCode: number | null, error: string | null, next: number | null): WebhookDeliveryAttempted => ({
  type: 'WebhookDeliveryAttempted',
  data: {
    deliveryId: 7,
    attempt: n,
    at: iso(ms),
    url: 'https://shop.example/hooks',
    statusCode,
    latencyMs: 12,
    error,
    nextAttemptAt: next === null ? null : iso(next),
  },
});

const unexpected = (status: number) => `unexpected status ${status}: only 200 is success`;

describe('retrySchedule', () => {
  it('retries once per interval on a grid from the first attempt, for at most the window (25 attempts in 24 h)', () => {
    const attempts = [t0];
    for (;;) {
      const next = retrySchedule(t0, attempts[attempts.length - 1], HOUR, DAY);
      if (!next.retry) break;
      attempts.push(next.nextAttemptAt);
    }
    expect(attempts).toHaveLength(25);
    expect(attempts[1]).toEqual(at(HOUR));
    expect(attempts[24]).toEqual(at(DAY));
  });

  it('does not let a late attempt shift the grid, and skips ticks that were missed', () => {
    expect(retrySchedule(t0, at(HOUR + 5 * 60_000), HOUR, DAY)).toEqual({ retry: true, nextAttemptAt: at(2 * HOUR) });
    expect(retrySchedule(t0, at(5.5 * HOUR), HOUR, DAY)).toEqual({ retry: true, nextAttemptAt: at(6 * HOUR) });
  });

  it('gives up when the next tick is past the window', () => {
    expect(retrySchedule(t0, at(DAY), HOUR, DAY)).toEqual({ retry: false });
    expect(retrySchedule(t0, at(23.5 * HOUR), HOUR, DAY)).toEqual({ retry: true, nextAttemptAt: at(DAY) });
    expect(retrySchedule(t0, t0, HOUR, 0)).toEqual({ retry: false });
  });
});

describe('retryWindowClosed', () => {
  it('lets the attempt owed to the last tick go out when it is taken a moment, or up to an interval, after that tick', () => {
    // 24 h is a whole number of hours: the last tick is the window's end, and the dispatcher takes it just after.
    expect(retryWindowClosed(iso(0), at(DAY + 5), HOUR, DAY)).toBe(false);
    expect(retryWindowClosed(iso(0), at(DAY + HOUR - 1), HOUR, DAY)).toBe(false);
    expect(retryWindowClosed(iso(0), at(12 * HOUR), HOUR, DAY)).toBe(false);
  });

  it('is closed once the tick after the last one within the window is due (the service was down then)', () => {
    expect(retryWindowClosed(iso(0), at(DAY + HOUR), HOUR, DAY)).toBe(true);
    expect(retryWindowClosed(iso(0), at(3 * DAY), HOUR, DAY)).toBe(true);
    // A window that is not a whole number of intervals: ticks at 0, 100, 200, 300 ms, closed at 400.
    expect(retryWindowClosed(iso(0), at(399), 100, 350)).toBe(false);
    expect(retryWindowClosed(iso(0), at(400), 100, 350)).toBe(true);
    // No retries (window 0): nothing after the first attempt's own tick.
    expect(retryWindowClosed(iso(0), at(HOUR), HOUR, 0)).toBe(true);
  });

  it('is never closed before a first attempt', () => {
    expect(retryWindowClosed(null, at(10 * DAY), HOUR, DAY)).toBe(false);
  });

  it('agrees with retrySchedule: every tick it schedules can still be sent at its time', () => {
    let now = t0;
    for (;;) {
      expect(retryWindowClosed(iso(0), now, HOUR, DAY)).toBe(false);
      const next = retrySchedule(t0, now, HOUR, DAY);
      if (!next.retry) break;
      now = next.nextAttemptAt;
    }
    expect(now).toEqual(at(DAY));
  });
});

describe('webhook delivery decider', () => {
  it('schedules a delivery, due at once', () => {
    given(webhookDeliveryDecider, []).when({ type: 'ScheduleDelivery', deliveryId: 7, endpointId: 3, merchantId: 1, payload, now: t0 }).then([scheduled]);
  });

  it('schedules nothing when the delivery exists already (a replay of the source event)', () => {
    given(webhookDeliveryDecider, [scheduled])
      .when({ type: 'ScheduleDelivery', deliveryId: 99, endpointId: 3, merchantId: 1, payload, now: at(5000) })
      .then([]);
  });

  it('records a 200 as the attempt and then, in the same append, the delivery', () => {
    given(webhookDeliveryDecider, [scheduled])
      .when(attempt(0, 200))
      .then([attempted(1, 0, 200, null, null), { type: 'WebhookDelivered', data: { deliveryId: 7, attempt: 1, deliveredAt: iso(0) } }]);
  });

  it.each([201, 204, 500, 404])('counts HTTP %i as a failure, retried an interval later', (status) => {
    given(webhookDeliveryDecider, [scheduled])
      .when(attempt(0, status))
      .then([attempted(1, 0, status, unexpected(status), HOUR)]);
  });

  it('counts no answer, a redirect and a 200 cut short as failures, with their reason', () => {
    given(webhookDeliveryDecider, [scheduled])
      .when(attempt(0, null, 'timed out after 10000 ms'))
      .then([attempted(1, 0, null, 'timed out after 10000 ms', HOUR)]);
    given(webhookDeliveryDecider, [scheduled])
      .when(attempt(0, 302, 'redirect (302) not followed'))
      .then([attempted(1, 0, 302, 'redirect (302) not followed', HOUR)]);
    given(webhookDeliveryDecider, [scheduled])
      .when(attempt(0, 200, 'connection reset'))
      .then([attempted(1, 0, 200, 'connection reset', HOUR)]);
  });

  it('delivers on the fourth attempt after three failures', () => {
    const history: WebhookDeliveryEvent[] = [
      scheduled,
      attempted(1, 0, 500, unexpected(500), HOUR),
      attempted(2, HOUR, 500, unexpected(500), 2 * HOUR),
      attempted(3, 2 * HOUR, null, 'connection refused', 3 * HOUR),
    ];
    given(webhookDeliveryDecider, history)
      .when(attempt(3 * HOUR + 40, 200))
      .then([attempted(4, 3 * HOUR + 40, 200, null, null), { type: 'WebhookDelivered', data: { deliveryId: 7, attempt: 4, deliveredAt: iso(3 * HOUR + 40) } }]);
  });

  it('keeps the grid of the first attempt when an attempt is late', () => {
    given(webhookDeliveryDecider, [scheduled, attempted(1, 0, 500, unexpected(500), HOUR)])
      .when(attempt(HOUR + 90_000, 503))
      .then([attempted(2, HOUR + 90_000, 503, unexpected(503), 2 * HOUR)]);
  });

  it('abandons the delivery when the attempt at the end of the window fails', () => {
    given(webhookDeliveryDecider, [scheduled, attempted(1, 0, 500, unexpected(500), HOUR), attempted(2, HOUR, 500, unexpected(500), 2 * HOUR)])
      .when(attempt(DAY, 500))
      .then([
        attempted(3, DAY, 500, unexpected(500), null),
        { type: 'WebhookDeliveryAbandoned', data: { deliveryId: 7, reason: 'retry_window_exhausted', abandonedAt: iso(DAY) } },
      ]);
  });

  it('records nothing once delivered or abandoned (a delivered event is never sent again by itself)', () => {
    const delivered: WebhookDeliveryEvent[] = [
      scheduled,
      attempted(1, 0, 200, null, null),
      { type: 'WebhookDelivered', data: { deliveryId: 7, attempt: 1, deliveredAt: iso(0) } },
    ];
    given(webhookDeliveryDecider, delivered).when(attempt(HOUR, 200)).then([]);
    given(webhookDeliveryDecider, delivered)
      .when({ type: 'AbandonDelivery', reason: 'endpoint_deleted', now: at(HOUR) })
      .then([]);
  });

  it('abandons a pending delivery whose endpoint was deleted', () => {
    given(webhookDeliveryDecider, [scheduled, attempted(1, 0, 500, unexpected(500), HOUR)])
      .when({ type: 'AbandonDelivery', reason: 'endpoint_deleted', now: at(60_000) })
      .then([{ type: 'WebhookDeliveryAbandoned', data: { deliveryId: 7, reason: 'endpoint_deleted', abandonedAt: iso(60_000) } }]);
  });

  it('redelivers on request, due at once, with a new retry window', () => {
    const abandoned: WebhookDeliveryEvent[] = [
      scheduled,
      attempted(1, 0, 500, unexpected(500), null),
      { type: 'WebhookDeliveryAbandoned', data: { deliveryId: 7, reason: 'retry_window_exhausted', abandonedAt: iso(0) } },
    ];
    const requested: WebhookDeliveryEvent = {
      type: 'WebhookRedeliveryRequested',
      data: { deliveryId: 7, endpointId: 3, merchantId: 1, requestedAt: iso(2 * DAY), by: 'admin', nextAttemptAt: iso(2 * DAY) },
    };
    given(webhookDeliveryDecider, abandoned)
      .when({ type: 'RequestRedelivery', by: 'admin', now: at(2 * DAY) })
      .then([requested]);
    // The window now starts at the redelivery's first attempt, not at the original one.
    given(webhookDeliveryDecider, [...abandoned, requested])
      .when({ ...attempt(2 * DAY + 10, 500), round: 1 } as WebhookDeliveryCommand)
      .then([attempted(2, 2 * DAY + 10, 500, unexpected(500), 2 * DAY + 10 + HOUR)]);
  });

  it('records an attempt sent before a redelivery was requested without letting it end or start the new round', () => {
    const requested: WebhookDeliveryEvent = {
      type: 'WebhookRedeliveryRequested',
      data: { deliveryId: 7, endpointId: 3, merchantId: 1, requestedAt: iso(HOUR), by: 'admin', nextAttemptAt: iso(HOUR) },
    };
    const inFlight: WebhookDeliveryEvent[] = [scheduled, attempted(1, 0, 500, unexpected(500), HOUR), requested];
    // A 200 to the request sent in round 0 does not deliver round 1: it is still due when asked.
    given(webhookDeliveryDecider, inFlight)
      .when(attempt(HOUR - 10, 200))
      .then([{ ...attempted(2, HOUR - 10, 200, null, HOUR), data: { ...attempted(2, HOUR - 10, 200, null, HOUR).data, beforeRedelivery: true } }]);
    // Nor does a failure put it off by an interval, or start its window.
    const stale = {
      ...attempted(2, HOUR - 10, 500, unexpected(500), HOUR),
      data: { ...attempted(2, HOUR - 10, 500, unexpected(500), HOUR).data, beforeRedelivery: true as const },
    };
    given(webhookDeliveryDecider, inFlight)
      .when(attempt(HOUR - 10, 500))
      .then([stale]);
    given(webhookDeliveryDecider, [...inFlight, stale])
      .when({ ...attempt(HOUR + 5, 500), round: 1 } as WebhookDeliveryCommand)
      .then([attempted(3, HOUR + 5, 500, unexpected(500), 2 * HOUR + 5)]);
  });

  it('cannot redeliver a delivery that does not exist', () => {
    given(webhookDeliveryDecider, []).when({ type: 'RequestRedelivery', by: 'admin', now: t0 }).thenThrows(NotFoundError);
  });
});
