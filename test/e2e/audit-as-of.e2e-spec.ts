import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
/** Point-in-time reads: GET /admin/merchants/{id}/as_of answers a read route from the log as it was. */
import http from 'node:http';
import { ManualClock } from '../../src/platform/clock.js';
import { Service, TestMerchant, createMerchant, createWidget } from '../support/service.js';

describe('point-in-time reads (admin as_of)', () => {
  const clock = new ManualClock(new Date('2026-04-01T08:00:00.000Z'));
  let service: Service;
  let m: TestMerchant;
  let annId: number;
  let widgetId: number;
  /** Global position of the last event before the changes. */
  let before: string;
  let laterMerchant: TestMerchant;

  const asOf = (merchantId: number, query: string) => service.get(`/admin/merchants/${merchantId}/as_of?${query}`, service.admin);
  const path = (p: string) => `path=${encodeURIComponent(p)}`;

  beforeAll(async () => {
    service = await Service.start({ clock, env: { METRICS_PUBLIC: 'true' } });
    m = await createMerchant(service, 'Shop');
    widgetId = (await createWidget(service, m, { name: 'Old name' })).id;
    annId = (await service.post('/v2/customers', { account_id: 'ann', first_name: 'Ann' }, { auth: m.bearer })).body.customer.id;
    await service.post('/v2/customers', { account_id: 'zed', first_name: 'Zed' }, { auth: m.bearer });
    const log = await service.get('/v2/audit/events?limit=100', { auth: m.bearer });
    before = log.body.results[log.body.results.length - 1].position;

    clock.set(new Date('2026-04-02T08:00:00.000Z'));
    await service.post('/v2/customers', { account_id: 'ann', first_name: 'Anna', last_name: 'Lee' }, { auth: m.bearer });
    await service.post('/v2/customers', { account_id: 'new', first_name: 'Newton' }, { auth: m.bearer });
    await service.patch(`/admin/merchants/${m.id}/widgets/${widgetId}`, { name: 'New name' }, service.admin);
    laterMerchant = await createMerchant(service, 'Later');
  });
  afterAll(async () => {
    await service.stop();
  });

  it('answers GET /v2/customers as it was at a position, while the live read shows the present', async () => {
    const then = await asOf(m.id, `position=${before}&${path('/v2/customers')}`);
    expect(then.status).toBe(200);
    expect(then.body.as_of).toEqual({ position: before, last_event_at: '2026-04-01T08:00:00.000Z' });
    expect(then.body.status).toBe(200);
    expect(
      then.body.body.results.map((c: { account_id: string; first_name: string; last_name: string | null }) => [c.account_id, c.first_name, c.last_name]),
    ).toEqual([
      ['ann', 'Ann', null],
      ['zed', 'Zed', null],
    ]);
    const now = await service.get('/v2/customers', { auth: m.bearer });
    expect(now.body.results.map((c: { account_id: string; first_name: string }) => [c.account_id, c.first_name])).toEqual([
      ['ann', 'Anna'],
      ['zed', 'Zed'],
      ['new', 'Newton'],
    ]);
  });

  it("counts a point-in-time read once, as the admin request, not as the merchant's API traffic", async () => {
    const count = async (route: string) => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`http_request_duration_seconds_count{method="GET",route="${route}",status="200"}`));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const [customers, admin] = [await count('/v2/customers'), await count('/admin/merchants/:merchant_id/as_of')];
    expect((await asOf(m.id, `position=${before}&${path('/v2/customers')}`)).body.status).toBe(200);
    expect(await count('/v2/customers')).toBe(customers);
    expect(await count('/admin/merchants/:merchant_id/as_of')).toBe(admin + 1);
  });

  it('takes a time instead: every event up to the first one recorded after it', async () => {
    const then = await asOf(m.id, `at=2026-04-01T12:00:00Z&${path(`/v2/customers/${annId}`)}`);
    expect(then.body).toMatchObject({ as_of: { position: before, at: '2026-04-01T12:00:00.000Z' }, status: 200 });
    expect(then.body.body.customer).toMatchObject({ id: annId, first_name: 'Ann', last_name: null, last_modified_at: '2026-04-01T08:00:00.000Z' });
    const later = await asOf(m.id, `at=2026-04-02T09:00:00%2B01:00&${path(`/v2/customers/${annId}`)}`);
    expect(later.body.body.customer).toMatchObject({ first_name: 'Anna', last_name: 'Lee' });
  });

  it('covers every read route and read model: widgets, v1 paths, unknown ids', async () => {
    const widget = await asOf(m.id, `position=${before}&${path(`/v2/widgets/${widgetId}`)}`);
    expect(widget.body.body.widget.name).toBe('Old name');
    expect((await service.get(`/v2/widgets/${widgetId}`, { auth: m.bearer })).body.widget.name).toBe('New name');
    const v1 = await asOf(m.id, `position=${before}&${path('/v1/customers?limit=10')}`);
    expect(v1.body.status).toBe(200);
    expect(v1.body.body.total_results_count).toBe(2);
    const newton = (await service.get('/v2/customers?account_id=new', { auth: m.bearer })).body.results[0];
    const missing = await asOf(m.id, `position=${before}&${path(`/v2/customers/${newton.id}`)}`);
    expect(missing.body.status).toBe(404);
    expect(missing.body.body.errors).toHaveLength(1);
  });

  it('pages through the past: next_page leads to the next page of the same point in time', async () => {
    const first = await asOf(m.id, `position=${before}&${path('/v2/customers?limit=1')}`);
    expect(first.body.body.results.map((c: { account_id: string }) => c.account_id)).toEqual(['ann']);
    const next: string = first.body.body.next_page;
    expect(next).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/admin/merchants/${m.id}/as_of\\?position=${before}&path=`));
    const second = await service.get(next.replace(service.url, ''), service.admin);
    expect(second.body.body.results.map((c: { account_id: string }) => c.account_id)).toEqual(['zed']);
    expect(second.body.body.next_page).toBeNull();
  });

  it('builds the links of its answer as the live route would for the same Host, not from the loopback address it reads through', async () => {
    // fetch sends the URL's host whatever it is told: node:http sends the Host a proxy in front would.
    const getAs = (target: string, authorization: string) =>
      new Promise<any>((resolve, reject) => {
        const { port } = new URL(service.url);
        const req = http.get({ host: '127.0.0.1', port, path: target, headers: { host: 'api.shop.example', authorization } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk));
          res.on('end', () => resolve(JSON.parse(text)));
        });
        req.on('error', reject);
      });
    const live = await getAs('/v1/customers?limit=1', m.basic);
    const then = await getAs(`/admin/merchants/${m.id}/as_of?position=${before}&${path('/v1/customers?limit=1')}`, service.admin.auth);
    expect(live.results[0].detail_uri).toMatch(/^http:\/\/api\.shop\.example\/v1\/customers\//);
    expect(then.body.results[0].detail_uri).toBe(live.results[0].detail_uri);
  });

  it('keeps live reads live while point-in-time reads run', async () => {
    const [then, now] = await Promise.all([
      asOf(m.id, `position=${before}&${path(`/v2/customers/${annId}`)}`),
      service.get(`/v2/customers/${annId}`, { auth: m.bearer }),
    ]);
    expect(then.body.body.customer.first_name).toBe('Ann');
    expect(now.body.customer.first_name).toBe('Anna');
  });

  it('is 404 for a merchant that did not exist yet, and refuses bad requests', async () => {
    expect((await asOf(laterMerchant.id, `position=${before}&${path('/v2/customers')}`)).status).toBe(404);
    // Beyond the head: the head is what is reached and said, and what next_page pins.
    const head = (await service.app.get<EventStore>(EVENT_STORE).headPosition()).toString();
    const beyond = await asOf(m.id, `position=99999999&${path('/v2/customers?limit=1')}`);
    expect(beyond.status).toBe(200);
    expect(beyond.body.as_of.position).toBe(head);
    expect(beyond.body.body.next_page).toContain(`position=${head}&`);
    for (const query of [
      path('/v2/customers'),
      `position=1&at=2026-04-01T00:00:00Z&${path('/v2/customers')}`,
      'position=1',
      `position=-1&${path('/v2/customers')}`,
      `at=yesterday&${path('/v2/customers')}`,
      `at=2026-04-01T00:00:00&${path('/v2/customers')}`,
      `position=1&${path('/admin/merchants')}`,
      `position=1&${path('/v2/../admin/merchants')}`,
      `position=1&${path('/v2/%2e%2e/admin/merchants')}`,
      `position=1&${path('//evil.example/v2/customers')}`,
      // Paths the URL parser refuses (they were a 500).
      `position=1&${path('//[')}`,
      `position=1&${path('/\\[')}`,
      `position=1&${path('//a:99999/v2/customers')}`,
      `position=1&${path('/v2/customers')}&extra=1`,
      `position=1&${path('/v2/audit/events')}`,
      // The same, spelled the way the router decodes it.
      `position=1&${path('/v2/%61udit/events?limit=100')}`,
      `position=1&${path('/v2/%zzudit/events')}`,
      // Days that do not exist (Date.parse reads 30 February as 2 March).
      `at=2026-02-30T00:00:00Z&${path('/v2/customers')}`,
      `at=2026-04-31T12:00:00Z&${path('/v2/customers')}`,
      `at=2026-04-01T24:00:00Z&${path('/v2/customers')}`,
    ]) {
      const r = await asOf(m.id, query);
      expect({ query, status: r.status }).toEqual({ query, status: 400 });
    }
    expect((await service.get(`/admin/merchants/${m.id}/as_of?position=1&${path('/v2/customers')}`, { auth: m.bearer })).status).toBe(401);
  });

  it('honours no point-in-time ticket it did not issue', async () => {
    const forged = await service.get('/v2/customers', { auth: m.bearer, headers: { 'x-point-in-time-ticket': 'made-up' } });
    expect(forged.status).toBe(400);
    expect(forged.body).toEqual({ errors: ['invalid point-in-time ticket'] });
  });
});
