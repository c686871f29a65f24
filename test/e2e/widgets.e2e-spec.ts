import { ManualClock } from '../../src/platform/clock.js';
import { Service, createMerchant, createWidget } from '../support/service.js';

describe('widgets (v2) and campaigns (v1)', () => {
  const clock = new ManualClock(new Date('2026-02-01T00:00:00.000Z'));
  let service: Service;
  beforeAll(async () => {
    service = await Service.start({ clock });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('presents one widget in both versions with the spec fields exactly', async () => {
    const m = await createMerchant(service);
    const w = await createWidget(service, m, { widget_group_id: 'g1', distribution: 60, is_champion: true, published: true });
    await createWidget(service, m, { widget_group_id: 'g1', distribution: 40 });
    const v2 = await service.get(`/v2/widgets/${w.id}`, { auth: m.bearer });
    expect(v2.body).toEqual({
      widget: {
        id: w.id,
        widget_group_id: 'g1',
        name: 'Give $10',
        objective: 'referral',
        distribution: 60,
        published: true,
        active: true,
        reward_type: 'fixed_cash',
        reward_amount: 10,
        created_at: '2026-02-01T00:00:00.000Z',
        last_modified_at: '2026-02-01T00:00:00.000Z',
      },
    });
    const v1 = await service.get('/v1/campaigns?limit=1', { auth: m.basic });
    expect(v1.body).toEqual({
      offset: 0,
      this_page_results_count: 1,
      total_results_count: 2,
      results: [
        {
          id: w.id,
          name: 'Give $10',
          published: true,
          referral_incentive: { type: 'fixed_cash', value: 10 },
          created_at: '2026-02-01T00:00:00.000Z',
          archived: false,
          objective: 'referral',
          distribution: 60,
          is_champion: true,
          campaign_group_id: 'g1',
        },
      ],
    });
  });

  it('shows a variant alone in its group as served 100 % of the time, whatever distribution was set (spec)', async () => {
    const m = await createMerchant(service);
    const alone = await createWidget(service, m, { widget_group_id: 'solo', distribution: 40 });
    expect((await service.get(`/v2/widgets/${alone.id}`, { auth: m.bearer })).body.widget.distribution).toBe(100);
    expect((await service.get('/v2/widgets', { auth: m.bearer })).body.results[0].distribution).toBe(100);
    expect((await service.get('/v1/campaigns', { auth: m.basic })).body.results[0].distribution).toBe(100);
    // The admin view shows what was set; a second variant makes it the served one.
    expect((await service.get(`/admin/merchants/${m.id}/widgets/${alone.id}`, service.admin)).body.widget.distribution).toBe(40);
    await createWidget(service, m, { widget_group_id: 'solo', distribution: 60 });
    expect((await service.get(`/v2/widgets/${alone.id}`, { auth: m.bearer })).body.widget.distribution).toBe(40);
  });

  it('shows chargebee_credit as `other` in v1 and no incentive when there is no reward', async () => {
    const m = await createMerchant(service);
    await createWidget(service, m, { reward_type: 'chargebee_credit', reward_amount: 5 });
    await createWidget(service, m, { name: 'No reward', reward_type: null, reward_amount: null });
    const v1 = await service.get('/v1/campaigns', { auth: m.basic });
    expect(v1.body.results.map((c: { referral_incentive: unknown }) => c.referral_incentive)).toEqual([{ type: 'other', value: 5 }, null]);
    const v2 = await service.get('/v2/widgets', { auth: m.bearer });
    expect(v2.body.results.map((w: { reward_type: string }) => w.reward_type)).toEqual(['chargebee_credit', null]);
  });

  it('filters v2 widgets by group and name, pages them, and hides other merchants', async () => {
    const m = await createMerchant(service);
    for (const [name, group] of [
      ['A', 'x'],
      ['B', 'x'],
      ['C', 'y'],
    ]) {
      clock.advance(1000);
      await createWidget(service, m, { name, widget_group_id: group });
    }
    const auth = { auth: m.bearer };
    expect((await service.get('/v2/widgets?widget_group_id=x', auth)).body.results.map((w: { name: string }) => w.name)).toEqual(['A', 'B']);
    expect((await service.get('/v2/widgets?name=C', auth)).body.results.map((w: { widget_group_id: string }) => w.widget_group_id)).toEqual(['y']);
    const page = await service.get('/v2/widgets?limit=2', auth);
    expect(page.body.results_count).toBe(2);
    const rest = await service.get(page.body.next_page.slice(service.url.length), auth);
    expect(rest.body).toMatchObject({ next_page: null, results_count: 1 });
    const stranger = await createMerchant(service);
    expect((await service.get(`/v2/widgets/${page.body.results[0].id}`, { auth: stranger.bearer })).status).toBe(404);
    expect((await service.get('/v2/widgets', { auth: stranger.bearer })).body.results).toEqual([]);
    expect((await service.get('/v1/campaigns', { auth: stranger.basic })).body.total_results_count).toBe(0);
    expect((await service.get('/v2/widgets/not-a-number', auth)).status).toBe(404);
  });

  it('pages v1 campaigns by offset and date', async () => {
    const m = await createMerchant(service);
    clock.set(new Date('2026-07-01T12:00:00.000Z'));
    await createWidget(service, m, { name: 'July' });
    clock.set(new Date('2026-08-01T12:00:00.000Z'));
    await createWidget(service, m, { name: 'August' });
    const july = await service.get('/v1/campaigns?from_date=2026-07-01&to_date=2026-07-31', { auth: m.basic });
    expect(july.body.results.map((c: { name: string }) => c.name)).toEqual(['July']);
    const second = await service.get('/v1/campaigns?offset=1&limit=5', { auth: m.basic });
    expect(second.body).toMatchObject({ offset: 1, this_page_results_count: 1, total_results_count: 2 });
    expect((await service.get('/v1/campaigns?limit=1000', { auth: m.basic })).status).toBe(400);
  });
});
