import { RecordedEvent } from '../../platform/event-store/event-store.js';
import { eventsAt, WebhookEndpointDoc, webhookEndpointsProjection } from './webhook-endpoints.projection.js';

const KEY = '0000000000000005';
const recorded = (position: bigint, type: string, data: unknown): RecordedEvent =>
  ({
    id: `e${position}`,
    type,
    data,
    metadata: {},
    streamName: 'webhook-endpoint-5',
    revision: 0,
    position,
    createdAt: new Date('2026-05-01T00:00:00.000Z'),
  }) as RecordedEvent;

describe('webhook endpoints read model', () => {
  it("keeps each earlier subscription up to the change that replaced it, so late handling matches the event's own time", () => {
    const base = { endpointId: 5, merchantId: 1 };
    let doc = webhookEndpointsProjection.evolve(
      null,
      recorded(10n, 'WebhookEndpointCreated', { ...base, url: 'https://a.example/h', events: ['conversion.created'], createdAt: 't0' }),
      KEY,
    ) as WebhookEndpointDoc;
    doc = webhookEndpointsProjection.evolve(
      doc,
      recorded(20n, 'WebhookEndpointChanged', { ...base, changes: { events: null }, changedAt: 't1' }),
      KEY,
    ) as WebhookEndpointDoc;
    doc = webhookEndpointsProjection.evolve(
      doc,
      recorded(30n, 'WebhookEndpointChanged', { ...base, changes: { url: 'https://b.example/h' }, changedAt: 't2' }),
      KEY,
    ) as WebhookEndpointDoc;
    doc = webhookEndpointsProjection.evolve(
      doc,
      recorded(40n, 'WebhookEndpointChanged', { ...base, changes: { events: ['share.created'] }, changedAt: 't3' }),
      KEY,
    ) as WebhookEndpointDoc;
    expect(eventsAt(doc, 15n)).toEqual(['conversion.created']);
    expect(eventsAt(doc, 25n)).toBeNull();
    expect(eventsAt(doc, 35n)).toBeNull();
    expect(eventsAt(doc, 45n)).toEqual(['share.created']);
    // A URL change is no change of subscription.
    expect(doc.events_until.map((e) => e.position)).toEqual(['20', '40']);
  });

  it('reads documents stored before the history existed as their current subscription', () => {
    const legacy = { events: ['share.created'] } as unknown as WebhookEndpointDoc;
    expect(eventsAt(legacy, 1n)).toEqual(['share.created']);
  });
});
