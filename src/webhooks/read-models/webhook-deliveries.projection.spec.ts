import { Given, ProjectedLog } from '../../../test/support/projection-spec.js';
import { docKey } from '../../platform/ids.js';
import { webhookDeliveryStream } from '../domain/webhook-delivery.js';
import { WebhookDeliveryEntryDoc, deliveryDetails, webhookDeliveriesCollection, webhookDeliveriesProjection } from './webhook-deliveries.projection.js';

const stream = webhookDeliveryStream(5, 'evt-1');
const payload = { id: 'evt-1', type: 'conversion.created', created_at: '2026-05-01T10:00:00.000Z', data: { conversion_id: 11 } };
const scheduled: Given = [
  stream,
  'WebhookDeliveryScheduled',
  {
    deliveryId: 9,
    endpointId: 5,
    merchantId: 1,
    kind: 'conversion.created',
    eventId: 'evt-1',
    payload,
    scheduledAt: '2026-05-01T10:00:00.000Z',
    nextAttemptAt: '2026-05-01T10:00:00.000Z',
  },
];
const failed: Given = [
  stream,
  'WebhookDeliveryAttempted',
  {
    deliveryId: 9,
    attempt: 1,
    at: '2026-05-01T10:00:01.000Z',
    url: 'https://hooks.example/a',
    statusCode: 500,
    latencyMs: 12,
    error: null,
    nextAttemptAt: '2026-05-01T11:00:01.000Z',
  },
];
const succeeded: Given = [
  stream,
  'WebhookDeliveryAttempted',
  {
    deliveryId: 9,
    attempt: 2,
    at: '2026-05-01T11:00:02.000Z',
    url: 'https://hooks.example/a',
    statusCode: 200,
    latencyMs: 8,
    error: null,
    nextAttemptAt: null,
  },
];
const delivered: Given = [stream, 'WebhookDelivered', { deliveryId: 9, attempt: 2, deliveredAt: '2026-05-01T11:00:02.000Z' }];
const redelivery: Given = [
  stream,
  'WebhookRedeliveryRequested',
  { deliveryId: 9, endpointId: 5, merchantId: 1, requestedAt: '2026-05-02T09:00:00.000Z', by: 'admin', nextAttemptAt: '2026-05-02T09:00:00.000Z' },
];

describe('webhook delivery log', () => {
  let log: ProjectedLog;
  const entry = async () => (await log.collection<WebhookDeliveryEntryDoc>(webhookDeliveriesCollection).get(docKey(9)))!;
  beforeEach(() => (log = new ProjectedLog([webhookDeliveriesProjection])));
  afterEach(() => log.close());

  it('keeps per delivery what its queries select on, the stream and how many of its events; no payload and no attempts', async () => {
    await log.apply(scheduled, failed, succeeded, delivered);
    expect(await entry()).toEqual({
      _id: docKey(9),
      id: 9,
      merchant_id: 1,
      endpoint_id: 5,
      kind: 'conversion.created',
      status: 'delivered',
      stream,
      events: 4,
      created_at: '2026-05-01T10:00:00.000Z',
    });
    await log.apply(redelivery);
    expect(await entry()).toMatchObject({ status: 'pending', events: 5 });
  });

  it('shows a delivery as its stream folded: every attempt, the payload, when it was delivered', async () => {
    await log.apply(scheduled, failed, succeeded, delivered);
    expect(deliveryDetails(await entry(), await log.readStream(stream))).toEqual({
      _id: docKey(9),
      id: 9,
      merchant_id: 1,
      endpoint_id: 5,
      kind: 'conversion.created',
      event_id: 'evt-1',
      stream,
      status: 'delivered',
      payload,
      attempts: [
        {
          attempt: 1,
          at: '2026-05-01T10:00:01.000Z',
          url: 'https://hooks.example/a',
          status_code: 500,
          latency_ms: 12,
          error: null,
          next_attempt_at: '2026-05-01T11:00:01.000Z',
        },
        { attempt: 2, at: '2026-05-01T11:00:02.000Z', url: 'https://hooks.example/a', status_code: 200, latency_ms: 8, error: null, next_attempt_at: null },
      ],
      next_attempt_at: null,
      delivered_at: '2026-05-01T11:00:02.000Z',
      abandoned_at: null,
      abandon_reason: null,
      created_at: '2026-05-01T10:00:00.000Z',
      last_modified_at: '2026-05-01T11:00:02.000Z',
    });
  });

  it('shows an entry read before the stream moved on as of that entry, so that it agrees with the status it was listed by', async () => {
    await log.apply(scheduled, failed);
    const listed = await entry();
    await log.apply(succeeded, delivered);
    const shown = deliveryDetails(listed, await log.readStream(stream))!;
    expect([shown.status, shown.attempts.length, shown.next_attempt_at]).toEqual(['pending', 1, '2026-05-01T11:00:01.000Z']);
    const now = deliveryDetails(await entry(), await log.readStream(stream))!;
    expect([now.status, now.attempts.length]).toEqual(['delivered', 2]);
  });

  it('folds the whole stream for an entry that does not count its events (written by an earlier release into MongoDB)', async () => {
    await log.apply(scheduled, failed, succeeded, delivered);
    const { events: _, ...older } = await entry();
    expect(deliveryDetails(older, await log.readStream(stream))).toEqual(deliveryDetails(await entry(), await log.readStream(stream)));
    expect(deliveryDetails(older, await log.readStream(stream))!.status).toBe('delivered');
    // A later event leaves it uncounted: counting from there would show only the stream's first events.
    await log.apply(redelivery);
    const [event] = (await log.readStream(stream)).slice(-1);
    const next = webhookDeliveriesProjection.evolve(older, event, docKey(9))!;
    expect(next).toEqual({ ...older, status: 'pending' });
    expect(deliveryDetails(next, await log.readStream(stream))!.status).toBe('pending');
  });
});
