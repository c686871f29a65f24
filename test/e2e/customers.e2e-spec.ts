import { ManualClock } from '../../src/platform/clock.js';
import { Service, TestMerchant, createMerchant } from '../support/service.js';

describe('customers, v1 and v2', () => {
  const clock = new ManualClock(new Date('2026-03-01T09:00:00.000Z'));
  let service: Service;
  let m: TestMerchant;
  beforeAll(async () => {
    service = await Service.start({ clock });
    m = await createMerchant(service);
  });
  afterAll(async () => {
    await service.stop();
  });
  const v2 = () => ({ auth: m.bearer });
  const v1 = () => ({ auth: m.basic });

  it('POST /v2/customers creates (201) then updates the same account_id (200), keeping the id', async () => {
    const created = await service.post('/v2/customers', { account_id: 'A-1', email_address: 'ann@example.com', first_name: 'Ann' }, v2());
    expect(created.status).toBe(201);
    expect(created.body.customer).toEqual({
      id: expect.any(Number),
      account_id: 'A-1',
      email_address: 'ann@example.com',
      first_name: 'Ann',
      last_name: null,
      stripe_customer_id: null,
      chargebee_customer_id: null,
      first_purchase_date: null,
      last_purchase_date: null,
      created_at: '2026-03-01T09:00:00.000Z',
      last_modified_at: '2026-03-01T09:00:00.000Z',
    });
    clock.advance(60_000);
    const updated = await service.post('/v2/customers', { account_id: 'A-1', last_name: 'Lee', stripe_customer_id: 'cus_1' }, v2());
    expect(updated.status).toBe(200);
    expect(updated.body.customer).toMatchObject({
      id: created.body.customer.id,
      first_name: 'Ann',
      last_name: 'Lee',
      stripe_customer_id: 'cus_1',
      created_at: '2026-03-01T09:00:00.000Z',
      last_modified_at: '2026-03-01T09:01:00.000Z',
    });
    const read = await service.get(`/v2/customers/${created.body.customer.id}`, v2());
    expect(read.body.customer).toEqual(updated.body.customer);
  });

  it('validates the body with structured reports', async () => {
    const r = await service.post('/v2/customers', { email_address: 'not-an-email', nickname: 'x' }, v2());
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual(
      expect.arrayContaining([
        { property: 'account_id', code: 'missing', message: expect.any(String) },
        { property: 'email_address', code: 'invalid', message: expect.any(String) },
        { property: 'nickname', code: 'unrecognized_property', message: expect.any(String) },
      ]),
    );
    expect((await service.post('/v2/customers', { account_id: 12 }, v2())).body.errors[0]).toMatchObject({ property: 'account_id', code: 'wrong_type' });
  });

  it('gives exactly one 201 when 20 requests register the same new account_id at once', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => service.post('/v2/customers', { account_id: 'race', first_name: `n${i}` }, v2())));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(replies.map((r) => r.body.customer.id)).size).toBe(1);
    const list = await service.get('/v2/customers?account_id=race', v2());
    expect(list.body.results_count).toBe(1);
  });

  it('filters v2 lists by account_id and by a case-insensitive name prefix', async () => {
    await service.post('/v2/customers', { account_id: 'N-1', first_name: 'Zelda', last_name: 'Hyrule' }, v2());
    await service.post('/v2/customers', { account_id: 'N-2', first_name: 'Bob', last_name: 'Zed' }, v2());
    await service.post('/v2/customers', { account_id: 'N-3', first_name: 'Carl', last_name: 'Axe' }, v2());
    const byName = await service.get('/v2/customers?name=ze', v2());
    expect(byName.body.results.map((c: { account_id: string }) => c.account_id)).toEqual(['N-1', 'N-2']);
    const byAccount = await service.get('/v2/customers?account_id=N-3', v2());
    expect(byAccount.body.results.map((c: { first_name: string }) => c.first_name)).toEqual(['Carl']);
    expect((await service.get('/v2/customers?account_id=none', v2())).body).toEqual({ next_page: null, results_count: 0, results: [] });
  });

  it('pages v2 with next_page URLs whose cursor survives inserts, and refuses bad paging', async () => {
    const other = await createMerchant(service, 'Paging shop');
    const auth = { auth: other.bearer };
    for (let i = 0; i < 5; i += 1) {
      clock.advance(1000);
      await service.post('/v2/customers', { account_id: `P-${i}` }, auth);
    }
    const first = await service.get('/v2/customers?limit=2', auth);
    expect(first.body.results_count).toBe(2);
    expect(first.body.results.map((c: { account_id: string }) => c.account_id)).toEqual(['P-0', 'P-1']);
    const next = new URL(first.body.next_page);
    expect(next.origin).toBe(service.url);
    expect(next.pathname).toBe('/v2/customers');
    expect(next.searchParams.get('limit')).toBe('2');
    expect(next.searchParams.get('cursor')).toBeTruthy();
    clock.advance(1000);
    await service.post('/v2/customers', { account_id: 'P-late' }, auth);
    const accounts: string[] = [];
    let url: string | null = first.body.next_page;
    while (url) {
      const page = await service.get(url.slice(service.url.length), auth);
      expect(page.status).toBe(200);
      accounts.push(...page.body.results.map((c: { account_id: string }) => c.account_id));
      url = page.body.next_page;
    }
    expect(accounts).toEqual(['P-2', 'P-3', 'P-4', 'P-late']);
    for (const bad of [
      'limit=0',
      'limit=-1',
      'limit=abc',
      'limit=101',
      'cursor=%%%',
      'cursor=bm90LWEtY3Vyc29y',
      `cursor=${Buffer.from('["x","y"]').toString('base64url')}`,
      `cursor=${Buffer.from('["2026-05-01T00:00:00.000Z",""]').toString('base64url')}`,
      'from=2026-13-01',
      'to=yesterday',
      'limit=1&limit=2',
      'unknown=1',
      '__proto__=1',
      'constructor=1',
      'toString=1',
      'hasOwnProperty=1',
    ]) {
      const r = await service.get(`/v2/customers?${bad}`, auth);
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
      expect(Array.isArray(r.body.errors)).toBe(true);
    }
    // A cursor is a position in the list that issued it: taken to another list it would start that
    // list at an unrelated point and skip records silently, so it is refused, as is one without its list.
    const cursor = new URL(first.body.next_page).searchParams.get('cursor')!;
    for (const elsewhere of [`/v2/widgets?cursor=${cursor}`, `/v2/purchases?cursor=${cursor}`, `/v2/audit/events?cursor=${cursor}`]) {
      expect({ elsewhere, status: (await service.get(elsewhere, auth)).status }).toEqual({ elsewhere, status: 400 });
    }
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as string[];
    expect((await service.get(`/v2/customers?cursor=${Buffer.from(JSON.stringify([at, id])).toString('base64url')}`, auth)).status).toBe(400);
    expect((await service.get(`/v2/customers?cursor=${cursor}`, auth)).status).toBe(200);
    expect((await service.get('/v2/customers?limit=0', auth)).body.errors).toEqual(['limit must be a positive integer']);
    expect((await service.get('/v2/customers?limit=100', auth)).status).toBe(200);
  });

  it('filters by inclusive from/to dates (UTC)', async () => {
    const dated = await createMerchant(service, 'Dated shop');
    const auth = { auth: dated.bearer };
    for (const [account, at] of [
      ['D-1', '2026-04-30T23:59:59.999Z'],
      ['D-2', '2026-05-01T00:00:00.000Z'],
      ['D-3', '2026-05-02T23:59:59.999Z'],
      ['D-4', '2026-05-03T00:00:00.000Z'],
    ]) {
      clock.set(new Date(at));
      await service.post('/v2/customers', { account_id: account }, auth);
    }
    const v2Range = await service.get('/v2/customers?from=2026-05-01&to=2026-05-02', auth);
    expect(v2Range.body.results.map((c: { account_id: string }) => c.account_id)).toEqual(['D-2', 'D-3']);
    const v1Range = await service.get('/v1/customers?from_date=2026-05-01&to_date=2026-05-02', { auth: dated.basic });
    expect(v1Range.body.results.map((c: { account_id: string }) => c.account_id)).toEqual(['D-2', 'D-3']);
    expect(v1Range.body.total_results_count).toBe(2);
    // The ends of the calendar: the day after 9999-12-31 has no four-digit year, and years 0-99 are not 1900-1999.
    const widest = await service.get('/v2/customers?from=0001-01-01&to=9999-12-31', auth);
    expect(widest.status).toBe(200);
    expect(widest.body.results.map((c: { account_id: string }) => c.account_id)).toEqual(['D-1', 'D-2', 'D-3', 'D-4']);
    const v1Widest = await service.get('/v1/customers?from_date=0099-12-31&to_date=9999-12-31', { auth: dated.basic });
    expect(v1Widest.body.total_results_count).toBe(4);
    expect((await service.get('/v2/customers?to=0099-12-31', auth)).body.results).toEqual([]);
    clock.set(new Date('2026-06-01T00:00:00.000Z'));
  });

  it('v1 search: SearchResults with offset paging, account_id filter and resolvable detail_uri', async () => {
    const shop = await createMerchant(service, 'v1 shop');
    for (let i = 0; i < 3; i += 1) {
      clock.advance(1000);
      await service.post('/v2/customers', { account_id: `V-${i}`, email_address: `v${i}@example.com`, first_name: `F${i}` }, { auth: shop.bearer });
    }
    const page = await service.get('/v1/customers?offset=1&limit=1', { auth: shop.basic });
    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      offset: 1,
      this_page_results_count: 1,
      total_results_count: 3,
      results: [
        {
          account_id: 'V-1',
          id: 'V-1',
          first_name: 'F1',
          last_name: null,
          email: 'v1@example.com',
          stripe_customer_id: null,
          chargebee_customer_id: null,
          detail_uri: expect.stringMatching(new RegExp(`^${service.url}/v1/customers/\\d+$`)),
        },
      ],
    });
    const detail = await service.get(page.body.results[0].detail_uri.slice(service.url.length), { auth: shop.basic });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ account_id: 'V-1', id: 'V-1', recent_shares: [], recent_referral_codes: [] });
    expect(detail.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const filtered = await service.get('/v1/customers?account_id=V-2', { auth: shop.basic });
    expect(filtered.body.total_results_count).toBe(1);
    expect((await service.get('/v1/customers?offset=-1', { auth: shop.basic })).status).toBe(400);
    expect((await service.get('/v1/customers/123456789', { auth: shop.basic })).status).toBe(404);
    expect((await service.get(page.body.results[0].detail_uri.slice(service.url.length), v1())).status).toBe(404);
  });

  it('v1 customer_info needs account_id or email and matches both when both are given', async () => {
    const shop = await createMerchant(service, 'info shop');
    await service.post('/v2/customers', { account_id: 'I-1', email_address: 'Info@Example.com' }, { auth: shop.bearer });
    const auth = { auth: shop.basic };
    const none = await service.get('/v1/customer_info', auth);
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual(['account_id or email is required']);
    expect((await service.get('/v1/customer_info?account_id=I-1', auth)).body.account_id).toBe('I-1');
    expect((await service.get('/v1/customer_info?email=info%40example.com', auth)).body.account_id).toBe('I-1');
    expect((await service.get('/v1/customer_info?email=%20INFO%40example.com%20', auth)).body.account_id).toBe('I-1');
    expect((await service.get('/v1/customer_info?account_id=I-1&email=info%40example.com', auth)).status).toBe(200);
    expect((await service.get('/v1/customer_info?account_id=I-1&email=other%40example.com', auth)).status).toBe(404);
    expect((await service.get('/v1/customer_info?account_id=I-1', v1())).status).toBe(404);
  });
});
