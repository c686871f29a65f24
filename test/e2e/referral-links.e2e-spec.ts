import { CommandBus } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { CODE_SOURCE, type CodeSource } from '../../src/platform/ids.js';
import { AssociateCouponCommand } from '../../src/referral-links/index.js';
import { Service, TestMerchant, createMerchant, createWidget } from '../support/service.js';

describe('referral codes and personal links', () => {
  let service: Service;
  let m: TestMerchant;
  let widget: { id: number };
  beforeAll(async () => {
    service = await Service.start();
    m = await createMerchant(service);
    // Published: customer tokens make links only on widgets on offer.
    widget = await createWidget(service, m, { destination_url: 'https://shop.example/welcome?lang=en', published: true });
  });
  afterAll(async () => {
    await service.stop();
  });
  const v2 = () => ({ auth: m.bearer });

  async function customer(accountId: string, email = `${accountId}@example.com`) {
    return (await service.post('/v2/customers', { account_id: accountId, email_address: email }, v2())).body.customer;
  }

  describe('v1 POST /referral_codes', () => {
    it('creates a customer PURL (and the customer) for an unseen account id, with every field of §2.2', async () => {
      const r = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'v1-adv', first_name: 'Ada', email: 'ada@example.com' }, parameters: { utm_source: 'crm' } },
        { auth: m.basic },
      );
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(
        [
          'additional_link_parameters',
          'campaign',
          'coupon_codes',
          'customer',
          'destination_url',
          'email',
          'referral_code',
          'referral_code_blacklisted',
          'reminder_email',
          'share',
          'trackable_link',
          'type',
        ].sort(),
      );
      expect(r.body).toMatchObject({
        type: 'customer_personal_url',
        referral_code: expect.stringMatching(/^[a-z0-9]{8}$/),
        destination_url: 'https://shop.example/welcome?lang=en',
        referral_code_blacklisted: false,
        share: null,
        reminder_email: null,
        campaign: { id: widget.id, name: 'Give $10' },
        additional_link_parameters: JSON.stringify({ utm_source: 'crm' }),
        email: 'ada@example.com',
        coupon_codes: [],
        customer: { account_id: 'v1-adv', id: 'v1-adv', first_name: 'Ada', email: 'ada@example.com' },
      });
      expect(r.body.trackable_link).toBe(`${service.url}/l/${r.body.referral_code}`);
      expect(r.body.customer.recent_referral_codes).toEqual([
        {
          referral_code: r.body.referral_code,
          trackable_link: r.body.trackable_link,
          destination_url: 'https://shop.example/welcome?lang=en',
          referral_code_blacklisted: false,
        },
      ]);
      const listed = await service.get('/v2/customers?account_id=v1-adv', v2());
      expect(listed.body.results_count).toBe(1);
    });

    it('returns the same code for the same advocate and campaign, updated with what is new', async () => {
      const first = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: 'same-adv' } }, { auth: m.basic });
      const again = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'same-adv', last_name: 'Lovelace' }, parameters: { a: 1 } },
        { auth: m.basic },
      );
      expect(again.body.referral_code).toBe(first.body.referral_code);
      expect(again.body.additional_link_parameters).toBe('{"a":1}');
      expect(again.body.customer.last_name).toBe('Lovelace');
    });

    it('makes an email PURL when only an email is given', async () => {
      const r = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, email: 'only@example.com' }, { auth: m.basic });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ type: 'email_personal_url', email: 'only@example.com', customer: null });
      const again = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, email: 'ONLY@example.com' }, { auth: m.basic });
      expect(again.body.referral_code).toBe(r.body.referral_code);
    });

    it('refuses what the rules forbid', async () => {
      const cases: [unknown, number][] = [
        [{ campaign: { id: widget.id } }, 400],
        [{ customer: { id: 'x' } }, 400],
        [{ campaign: { id: widget.id }, customer: { id: 'x' }, coupon_code: 'A', coupon_bank_id: 1 }, 400],
        [{ campaign: { id: widget.id }, customer: { id: 'x' }, coupon_code: 'NOT-UPLOADED' }, 400],
        [{ campaign: { id: widget.id }, customer: { id: 'x' }, coupon_bank_id: 987654 }, 404],
        [{ campaign: { id: 999999 }, customer: { id: 'x' } }, 404],
        [{ campaign: { id: 'abc' }, customer: { id: 'x' } }, 400],
        [{ campaign: { id: widget.id }, customer: { id: 'x', nick: 'y' } }, 400],
      ];
      for (const [body, status] of cases) {
        const r = await service.post('/v1/referral_codes', body, { auth: m.basic });
        expect({ body, status: r.status }).toEqual({ body, status });
        expect(Array.isArray(r.body.errors)).toBe(true);
      }
      // One report per fault: the wrong JSON type once (an object property given a string broke two rules).
      const reports = async (body: Record<string, unknown>) =>
        (await service.post('/v1/referral_codes', body, { auth: m.basic })).body.errors.map(
          (e: { property: string; code: string }) => `${e.property}:${e.code}`,
        );
      expect(await reports({ campaign: { id: widget.id }, customer: 'x' })).toEqual(['customer:wrong_type']);
      expect(await reports({ campaign: widget.id, email: 'a@b.co' })).toEqual(['campaign:wrong_type']);
      for (const parameters of ['a=b', 5, true, [1]])
        expect(await reports({ campaign: { id: widget.id }, email: 'a@b.co', parameters })).toEqual(['parameters:wrong_type']);
      expect(await reports({ campaign: { id: widget.id }, email: 'a@b.co', parameters: { deep: { x: 1 } } })).toEqual(['parameters:invalid']);
      const stranger = await createMerchant(service);
      const other = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, email: 'a@b.co' }, { auth: stranger.basic });
      expect(other.status).toBe(404);
      // v1 says campaign where v2 says widget (spec §9).
      expect(other.body.errors).toEqual([`campaign ${widget.id} not found`]);
    });

    it('refuses customer fields without customer.id (they would be dropped), and writes nothing', async () => {
      const before = (await service.get('/v2/customers?limit=100', v2())).body;
      for (const customer of [{ first_name: 'x' }, { email: 'c@b.co', last_name: 'y' }, { stripe_customer_id: 'cus_1', chargebee_customer_id: null }]) {
        const r = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer, email: 'nameless@b.co' }, { auth: m.basic });
        expect(r.status).toBe(400);
        const given = Object.keys(customer).filter((k) => customer[k as keyof typeof customer] !== null);
        expect(r.body.errors).toEqual([
          {
            property: 'customer.id',
            code: 'missing',
            message: `customer.id is required when other customer fields are given (${given.map((k) => `customer.${k}`).join(', ')})`,
          },
        ]);
      }
      expect((await service.get('/v2/personal_referral_links?email_address=nameless@b.co', v2())).body.results).toEqual([]);
      expect((await service.get('/v2/customers?limit=100', v2())).body).toEqual(before);
      // Nothing to drop: an empty customer, or one of nulls (null is the property left out), is the email PURL.
      for (const customer of [{}, { first_name: null }]) {
        const r = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer, email: 'nameless@b.co' }, { auth: m.basic });
        expect([r.status, r.body.type]).toEqual([200, 'email_personal_url']);
      }
    });

    it('takes campaign.id and coupon_bank_id as the other body ids are taken: a positive safe integer, or its digits', async () => {
      // A merchant of its own: the coupon lists of the tests below count this merchant's coupons.
      const shop = await createMerchant(service, 'Ids shop');
      const shopWidget = await createWidget(service, shop);
      const bank = (await service.post(`/admin/merchants/${shop.id}/coupon_banks`, { name: 'Ids', codes: ['IDS-1'] }, service.admin)).body.coupon_bank;
      const asDigits = await service.post(
        '/v1/referral_codes',
        { campaign: { id: String(shopWidget.id) }, customer: { id: 'digits-adv' }, coupon_bank_id: String(bank.id) },
        { auth: shop.basic },
      );
      expect(asDigits.status).toBe(200);
      expect(asDigits.body).toMatchObject({ campaign: { id: shopWidget.id }, coupon_codes: ['IDS-1'] });
      const asNumber = await service.post(
        '/v1/referral_codes',
        { campaign: { id: shopWidget.id }, customer: { id: 'digits-adv' }, coupon_bank_id: bank.id },
        { auth: shop.basic },
      );
      expect(asNumber.body.referral_code).toBe(asDigits.body.referral_code);
      // Past 2^53 JSON numbers are rounded to another id (9007199254740993 reads as …992), and
      // 1e300 is no id at all: refused, where they were looked up as campaign 9007199254740992 and 1e+300.
      const refused = async (campaignId: string, bankId: string) => {
        const r = await service.request('POST', '/v1/referral_codes', {
          raw: `{"campaign":{"id":${campaignId}},"email":"ids@example.com","coupon_bank_id":${bankId}}`,
          headers: { 'content-type': 'application/json' },
          auth: shop.basic,
        });
        return [r.status, r.body.errors.map((e: { property: string; code: string }) => `${e.property}:${e.code}`)];
      };
      for (const big of ['9007199254740993', '1e300', '"9007199254740993"', '0', '-1', '1.5', '"01"']) {
        expect([big, ...(await refused(big, big))]).toEqual([big, 400, ['campaign.id:invalid', 'coupon_bank_id:invalid']]);
      }
      expect(await refused('true', '[1]')).toEqual([400, ['campaign.id:wrong_type', 'coupon_bank_id:wrong_type']]);
    });

    it('associates a coupon code from a bank, or the next available code of a bank', async () => {
      const bank = await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Spring', codes: ['SPR-1', 'SPR-2', 'SPR-3'] }, service.admin);
      expect(bank.status).toBe(201);
      expect(bank.body.coupon_bank).toMatchObject({ name: 'Spring', codes_count: 3, available_count: 3 });
      const direct = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'coupon-1' }, coupon_code: 'SPR-2' },
        { auth: m.basic },
      );
      expect(direct.status).toBe(200);
      expect(direct.body.coupon_codes).toEqual(['SPR-2']);
      const fromBank = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'coupon-2' }, coupon_bank_id: bank.body.coupon_bank.id },
        { auth: m.basic },
      );
      expect(fromBank.body.coupon_codes).toEqual(['SPR-1']);
      const taken = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'coupon-3' }, coupon_code: 'SPR-2' },
        { auth: m.basic },
      );
      expect(taken.status).toBe(409);
      const after = await service.get(`/admin/merchants/${m.id}/coupon_banks/${bank.body.coupon_bank.id}`, service.admin);
      expect(after.body.coupon_bank.available_count).toBe(1);
      const c1 = (await service.get('/v2/customers?account_id=coupon-1', v2())).body.results[0];
      const coupons = await service.get(`/v2/coupons?customer_id=${c1.id}`, v2());
      expect(coupons.body.results).toEqual([
        expect.objectContaining({ code: 'SPR-2', referral_code: direct.body.referral_code, customer: `${service.url}/v2/customers/${c1.id}` }),
      ]);
      const all = await service.get('/v2/coupons', v2());
      expect(all.body.results.map((c: { code: string }) => c.code).sort()).toEqual(['SPR-1', 'SPR-2']);
      const token = (await service.post('/v2/tokens/customer', { customer_id: c1.id }, v2())).body.token;
      const own = await service.get('/v2/coupons', { auth: `Bearer ${token}` });
      expect(own.body.results.map((c: { code: string }) => c.code)).toEqual(['SPR-2']);
    });

    it('lists coupons in the order they were associated, so a cursor skips none associated meanwhile', async () => {
      const other = await createMerchant(service);
      const otherWidget = await createWidget(service, other);
      await service.post(`/admin/merchants/${other.id}/coupon_banks`, { name: 'Order', codes: ['ORD-1', 'ORD-2', 'ORD-3'] }, service.admin);
      const associate = (code: string, customer: string) =>
        service.post('/v1/referral_codes', { campaign: { id: otherWidget.id }, customer: { id: customer }, coupon_code: code }, { auth: other.basic });
      await associate('ORD-3', 'ord-c');
      await associate('ORD-2', 'ord-b');
      const bearer = { auth: other.bearer };
      const first = await service.get('/v2/coupons?limit=1', bearer);
      expect(first.body.results.map((c: { code: string }) => c.code)).toEqual(['ORD-3']);
      // Associated while the client pages: it comes at the end, not before the cursor (uploaded first).
      await associate('ORD-1', 'ord-a');
      const seen = ['ORD-3'];
      for (let next = first.body.next_page; next;) {
        const page = await service.get(new URL(next).pathname + new URL(next).search, bearer);
        seen.push(...page.body.results.map((c: { code: string }) => c.code));
        next = page.body.next_page;
      }
      expect(seen).toEqual(['ORD-3', 'ORD-2', 'ORD-1']);
    });

    it('a bank draw attaches the code drawn; asking again draws no other', async () => {
      const bank = (await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Draws', codes: ['DRW-1', 'DRW-2', 'DRW-3'] }, service.admin)).body
        .coupon_bank;
      const named = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'drawer' }, coupon_code: 'DRW-2' },
        { auth: m.basic },
      );
      expect(named.body.coupon_codes).toEqual(['DRW-2']);
      // It already holds a code of this bank: that is its coupon (the draw used to take DRW-1 and attach nothing).
      const again = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'drawer' }, coupon_bank_id: bank.id },
        { auth: m.basic },
      );
      expect(again.status).toBe(200);
      expect(again.body.coupon_codes).toEqual(['DRW-2']);
      const other = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'drawer-2' }, coupon_bank_id: bank.id },
        { auth: m.basic },
      );
      expect(other.body.coupon_codes).toEqual(['DRW-1']);
      expect(
        (await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: 'drawer-2' }, coupon_bank_id: bank.id }, { auth: m.basic }))
          .body.coupon_codes,
      ).toEqual(['DRW-1']);
      const left = await service.get(`/admin/merchants/${m.id}/coupon_banks/${bank.id}`, service.admin);
      expect(left.body.coupon_bank.available_count).toBe(1);
      const coupons = (await service.get('/v2/coupons?limit=100', v2())).body.results.map((c: { code: string; referral_code: string }) => [
        c.code,
        c.referral_code,
      ]);
      expect(coupons).toEqual(
        expect.arrayContaining([
          ['DRW-2', named.body.referral_code],
          ['DRW-1', other.body.referral_code],
        ]),
      );
      expect(coupons.filter(([code]: [string]) => code.startsWith('DRW-'))).toHaveLength(2);
    });

    it("keeps a coupon code in one bank of a merchant: an upload repeating another bank's code is 409, concurrent ones too", async () => {
      const first = await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'One', codes: ['ONE-1', 'ONE-2'] }, service.admin);
      expect(first.status).toBe(201);
      const repeat = await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Two', codes: ['TWO-1', 'ONE-2'] }, service.admin);
      expect(repeat.status).toBe(409);
      expect(repeat.body.errors).toEqual(['1 code(s) are already in another of your coupon banks: ONE-2']);
      const second = (await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Two', codes: ['TWO-1'] }, service.admin)).body.coupon_bank;
      expect((await service.post(`/admin/merchants/${m.id}/coupon_banks/${second.id}/codes`, { codes: ['ONE-1'] }, service.admin)).status).toBe(409);
      // Codes already in the same bank are still just ignored.
      expect((await service.post(`/admin/merchants/${m.id}/coupon_banks/${second.id}/codes`, { codes: ['TWO-1', 'TWO-2'] }, service.admin)).status).toBe(200);
      const banks = async () =>
        (await service.get(`/admin/merchants/${m.id}/coupon_banks`, service.admin)).body.coupon_banks as { name: string; codes_count: number }[];
      expect((await banks()).filter((b) => b.name === 'Two')).toEqual([expect.objectContaining({ codes_count: 2 })]);
      // Ten identical uploads at once: one bank holds the codes.
      const race = await Promise.all(
        Array.from({ length: 10 }, () => service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Race', codes: ['RACE-1', 'RACE-2'] }, service.admin)),
      );
      expect(race.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
      expect((await banks()).filter((b) => b.name === 'Race')).toHaveLength(1);
    });

    it('trims uploaded coupon codes, refuses blank ones and ones with control characters or whitespace inside, each by its index', async () => {
      const bad = await service.post(
        `/admin/merchants/${m.id}/coupon_banks`,
        { name: 'Typed', codes: [' TRIM-1 ', 'a\nb', '   ', 'x y', 'Z\u200b', ''] },
        service.admin,
      );
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([
        { property: 'codes.1', code: 'invalid', message: 'codes.1 must not hold control or invisible formatting characters' },
        { property: 'codes.2', code: 'invalid', message: 'codes.2 must not be blank' },
        { property: 'codes.3', code: 'invalid', message: 'codes.3 must not hold whitespace' },
        { property: 'codes.4', code: 'invalid', message: 'codes.4 must not hold control or invisible formatting characters' },
        { property: 'codes.5', code: 'invalid', message: 'codes.5 must not be blank' },
      ]);
      // A code of the wrong type is named by its index too, beside the bad ones.
      const typed = await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Typed', codes: ['OK-1', 7, '   '] }, service.admin);
      expect(typed.body.errors).toEqual([
        { property: 'codes.2', code: 'invalid', message: 'codes.2 must not be blank' },
        { property: 'codes.1', code: 'wrong_type', message: 'codes.1 must be a string' },
      ]);
      const bank = (await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Typed', codes: [' TRIM-1 ', 'TRIM-1', '\tTRIM-2'] }, service.admin))
        .body.coupon_bank;
      expect(bank.codes_count).toBe(2);
      // Stored trimmed: the code as a friend types it is the bank's.
      const held = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, email: 'trim@example.com', coupon_code: 'TRIM-1' },
        { auth: m.basic },
      );
      expect(held.body.coupon_codes).toEqual(['TRIM-1']);
    });

    it('keeps coupon codes unique whatever their case: in one upload, and against every bank of the merchant', async () => {
      const inUpload = await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Cased', codes: ['AAA-1', 'BBB-1', 'aaa-1'] }, service.admin);
      expect(inUpload.status).toBe(400);
      expect(inUpload.body.errors).toEqual([{ property: 'codes.2', code: 'invalid', message: 'codes.2 (aaa-1) is codes.0 (AAA-1) in another case' }]);
      const bank = (await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Cased', codes: ['AAA-1'] }, service.admin)).body.coupon_bank;
      const other = await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Cased 2', codes: ['CCC-1', 'aaa-1'] }, service.admin);
      expect(other.status).toBe(409);
      expect(other.body.errors).toEqual([
        `1 code(s) differ in case alone from codes already in your coupon banks (codes are compared case-insensitively): aaa-1 (AAA-1 in coupon bank ${bank.id})`,
      ]);
      expect((await service.post(`/admin/merchants/${m.id}/coupon_banks/${bank.id}/codes`, { codes: ['Aaa-1'] }, service.admin)).status).toBe(409);
      expect((await service.get(`/admin/merchants/${m.id}/coupon_banks/${bank.id}`, service.admin)).body.coupon_bank.codes_count).toBe(1);
      // A coupon given in another case is the bank's code.
      const held = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, email: 'cased@example.com', coupon_code: 'aaa-1' },
        { auth: m.basic },
      );
      expect(held.status).toBe(200);
      expect(held.body.coupon_codes).toEqual(['AAA-1']);
    });

    it('hands a code out and records it on the link in one commit: a link that refuses it leaves the code in the bank', async () => {
      const bank = (await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Atomic', codes: ['ATM-1'] }, service.admin)).body.coupon_bank;
      // A referral code with no link: the link's decision refuses the association after the bank's has drawn.
      await expect(
        service.app.get(CommandBus).execute(new AssociateCouponCommand({ merchantId: m.id, referralCode: 'nolink23', bankId: bank.id })),
      ).rejects.toThrow('not found');
      expect((await service.get(`/admin/merchants/${m.id}/coupon_banks/${bank.id}`, service.admin)).body.coupon_bank.available_count).toBe(1);
      const taker = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'atomic-taker' }, coupon_bank_id: bank.id },
        { auth: m.basic },
      );
      expect(taker.body.coupon_codes).toEqual(['ATM-1']);
    });

    it('a 409 for a taken coupon or an exhausted bank creates neither the customer nor the link', async () => {
      const bank = (await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Tiny', codes: ['TINY-1'] }, service.admin)).body.coupon_bank;
      expect(
        (await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: 'tiny-holder' }, coupon_bank_id: bank.id }, { auth: m.basic }))
          .status,
      ).toBe(200);
      const before = await service.get('/v2/customers?limit=100', v2());
      const taken = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'tiny-late-1' }, coupon_code: 'TINY-1' },
        { auth: m.basic },
      );
      expect(taken.status).toBe(409);
      expect(taken.body.errors).toEqual(['coupon code TINY-1 is already associated with another referral code']);
      const empty = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, email: 'tiny-late-2@example.com', coupon_bank_id: bank.id },
        { auth: m.basic },
      );
      expect(empty.status).toBe(409);
      expect(empty.body.errors).toEqual([`coupon bank ${bank.id} has no available code`]);
      expect((await service.get('/v2/customers?limit=100', v2())).body.results).toEqual(before.body.results);
      expect((await service.get('/v1/customer_info?account_id=tiny-late-1', { auth: m.basic })).status).toBe(404);
      expect((await service.get('/v2/personal_referral_links?email_address=tiny-late-2@example.com', v2())).body.results).toEqual([]);
    });

    it('…and so does every refused one of concurrent requests racing for one coupon', async () => {
      const bank = (await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Contested', codes: ['CNT-1', 'CNT-2', 'CNT-3'] }, service.admin)).body
        .coupon_bank;
      const ask = (who: string, coupon: Record<string, unknown>) =>
        service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: who }, ...coupon }, { auth: m.basic });
      const named = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(`contest-a${i}`, { coupon_code: 'CNT-1' })));
      expect(named.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
      const drawn = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(`contest-b${i}`, { coupon_bank_id: bank.id })));
      expect(drawn.map((r) => r.status).sort()).toEqual([200, 200, ...Array(8).fill(409)]);
      const customers = (await service.get('/v2/customers?limit=100', v2())).body.results.map((c: { account_id: string }) => c.account_id);
      expect(customers.filter((a: string) => a.startsWith('contest-')).sort()).toEqual(
        [...named, ...drawn]
          .filter((r) => r.status === 200)
          .map((r) => r.body.customer.account_id)
          .sort(),
      );
    });

    it('concurrent requests for a new advocate all answer 200 with the one code', async () => {
      for (let round = 0; round < 5; round += 1) {
        const replies = await Promise.all(
          Array.from({ length: 10 }, () =>
            service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: `race-${round}` } }, { auth: m.basic }),
          ),
        );
        expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
        expect(new Set(replies.map((r) => r.body.referral_code)).size).toBe(1);
      }
    });
  });

  describe('v2 personal referral links', () => {
    it("creates a customer PURL (201), returns the same one again (201, as the spec's table says), and looks it up by code with origin", async () => {
      const c = await customer('purl-1');
      const created = await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: c.id, link_parameters: { x: 'y' } }, v2());
      expect(created.status).toBe(201);
      expect(created.body.referral_link).toEqual({
        type: 'customer_personal_url',
        code: expect.any(String),
        widget: `${service.url}/v2/widgets/${widget.id}`,
        origin: `${service.url}/v2/customers/${c.id}`,
        link_parameters: '{"x":"y"}',
        trackable_link: expect.stringContaining('/l/'),
      });
      const again = await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: c.id }, v2());
      expect(again.status).toBe(201);
      expect(again.body.referral_link.code).toBe(created.body.referral_link.code);
      const looked = await service.get(`/v2/referral_links/${created.body.referral_link.code}`, v2());
      expect(looked.body.referral_link).toEqual(again.body.referral_link);
      const email = await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: 'purl@example.com' }, v2());
      expect(email.body.referral_link).toMatchObject({ type: 'email_personal_url', origin: 'purl@example.com', link_parameters: null });
    });

    it('gives 50 advocates 50 distinct codes when they ask at once', async () => {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: `burst${i}@example.com` }, v2()),
        ),
      );
      expect(replies.every((r) => r.status === 201)).toBe(true);
      expect(new Set(replies.map((r) => r.body.referral_link.code)).size).toBe(50);
    });

    it('gives one advocate one code however many ask at once', async () => {
      const c = await customer('racer');
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: c.id }, v2())),
      );
      expect(new Set(replies.map((r) => r.body.referral_link.code)).size).toBe(1);
      expect(replies.map((r) => r.status)).toEqual(Array(10).fill(201));
      expect((await service.get(`/v2/personal_referral_links?customer_id=${c.id}&widget_id=${widget.id}`, v2())).body.results).toHaveLength(1);
    });

    it('filters the list by widget, customer and email', async () => {
      const other = await createWidget(service, m, { name: 'Other' });
      const c = await customer('lister');
      await service.post('/v2/personal_referral_links', { widget_id: other.id, customer_id: c.id }, v2());
      await service.post('/v2/personal_referral_links', { widget_id: other.id, email_address: 'list@example.com' }, v2());
      const byWidget = await service.get(`/v2/personal_referral_links?widget_id=${other.id}`, v2());
      expect(byWidget.body.results_count).toBe(2);
      const byCustomer = await service.get(`/v2/personal_referral_links?customer_id=${c.id}`, v2());
      expect(byCustomer.body.results.map((l: { type: string }) => l.type)).toEqual(['customer_personal_url']);
      const byEmail = await service.get('/v2/personal_referral_links?email_address=LIST@example.com', v2());
      expect(byEmail.body.results.map((l: { origin: string }) => l.origin)).toEqual(['list@example.com']);
      const padded = await service.get('/v2/personal_referral_links?email_address=%20list@example.com%20', v2());
      expect(padded.body.results.map((l: { origin: string }) => l.origin)).toEqual(['list@example.com']);
      // Email PURLs only (spec §4.2): not the customer PURL whose reward address this is.
      const byCustomerAddress = await service.get('/v2/personal_referral_links?email_address=lister@example.com', v2());
      expect(byCustomerAddress.body.results).toEqual([]);
      expect((await service.get('/v2/personal_referral_links?widget_id=abc', v2())).status).toBe(400);
    });

    it('PATCH replaces the link parameters entirely', async () => {
      const made = await service.post(
        '/v2/personal_referral_links',
        { widget_id: widget.id, email_address: 'patch@example.com', link_parameters: { a: '1', b: '2' } },
        v2(),
      );
      const code = made.body.referral_link.code;
      const patched = await service.patch(`/v2/personal_referral_links/${code}`, { link_parameters: { c: 3, flag: true } }, v2());
      expect(patched.status).toBe(200);
      expect(JSON.parse(patched.body.referral_link.link_parameters)).toEqual({ c: 3, flag: true });
      expect((await service.patch(`/v2/personal_referral_links/${code}`, { link_parameters: 'x' }, v2())).status).toBe(400);
      expect((await service.patch(`/v2/personal_referral_links/${code}`, {}, v2())).status).toBe(400);
      expect((await service.patch('/v2/personal_referral_links/nope1234', { link_parameters: {} }, v2())).status).toBe(404);
      const cleared = await service.patch(`/v2/personal_referral_links/${code}`, { link_parameters: null }, v2());
      expect(cleared.body.referral_link.link_parameters).toBeNull();
    });

    it('scopes a customer token to its own links', async () => {
      const me = await customer('token-owner');
      const other = await customer('someone-else');
      await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: other.id }, v2());
      const token = `Bearer ${(await service.post('/v2/tokens/customer', { customer_id: me.id }, v2())).body.token}`;
      const mine = await service.post('/v2/personal_referral_links', { widget_id: widget.id }, { auth: token });
      expect(mine.status).toBe(201);
      expect(mine.body.referral_link.origin).toBe(`${service.url}/v2/customers/${me.id}`);
      expect((await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: other.id }, { auth: token })).status).toBe(403);
      const listed = await service.get('/v2/personal_referral_links', { auth: token });
      expect(listed.body.results.map((l: { code: string }) => l.code)).toEqual([mine.body.referral_link.code]);
      expect((await service.get(`/v2/personal_referral_links?customer_id=${other.id}`, { auth: token })).status).toBe(403);
      expect((await service.get(`/v2/referral_links/${mine.body.referral_link.code}`, { auth: token })).status).toBe(403);
      expect((await service.patch(`/v2/personal_referral_links/${mine.body.referral_link.code}`, { link_parameters: {} }, { auth: token })).status).toBe(403);
    });

    it('a customer token cannot change what the merchant set on its link: parameters and reward address are 403 and change nothing', async () => {
      const me = (await service.post('/v2/customers', { account_id: 'ct-guard', email_address: 'guard@example.com' }, v2())).body.customer;
      const set = await service.post(
        '/v2/personal_referral_links',
        { widget_id: widget.id, customer_id: me.id, link_parameters: { affiliate_id: '42' } },
        v2(),
      );
      const token = `Bearer ${(await service.post('/v2/tokens/customer', { customer_id: me.id }, v2())).body.token}`;
      for (const body of [
        { link_parameters: { affiliate_id: 'evil' } },
        { email_address: 'attacker@example.net' },
        { link_parameters: {}, email_address: 'guard@example.com' },
      ]) {
        const refused = await service.post('/v2/personal_referral_links', { widget_id: widget.id, ...body }, { auth: token });
        expect(refused.status).toBe(403);
        expect(refused.body.errors.length).toBeGreaterThan(0);
      }
      const after = (await service.get(`/v2/referral_links/${set.body.referral_link.code}`, v2())).body.referral_link;
      expect(after).toEqual(set.body.referral_link);
      // Getting the link itself still works, and is the same link.
      const mine = await service.post('/v2/personal_referral_links', { widget_id: widget.id }, { auth: token });
      expect([mine.status, mine.body.referral_link.code]).toEqual([201, set.body.referral_link.code]);
    });

    it("asking again without a reward address keeps the one the link has (it does not fall back to the customer's)", async () => {
      const me = (await service.post('/v2/customers', { account_id: 'payout-adv', email_address: 'payout-adv@example.com' }, v2())).body.customer;
      const made = await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: me.id, email_address: 'payout@example.com' }, v2());
      const token = `Bearer ${(await service.post('/v2/tokens/customer', { customer_id: me.id }, v2())).body.token}`;
      for (const [body, auth] of [
        [{ widget_id: widget.id }, { auth: token }],
        [{ widget_id: widget.id, customer_id: me.id }, v2()],
      ] as const) {
        const again = await service.post('/v2/personal_referral_links', body, auth);
        expect([again.status, again.body.referral_link.code]).toEqual([201, made.body.referral_link.code]);
      }
      await service.post('/v2/purchases', { order_id: 'payout-1', referral_code: made.body.referral_link.code }, v2());
      const conversion = (await service.get(`/v2/conversions?customer_id=${me.id}`, v2())).body.results[0];
      expect(conversion.advocate_email_address).toBe('payout@example.com');
      // v1 (spec §4.1 rule 1: updated with what is new in the body): the same.
      const v1 = await service.post(
        '/v1/referral_codes',
        { campaign: { id: widget.id }, customer: { id: 'v1-payout', email: 'v1-payout@example.com' }, email: 'reward@example.com' },
        { auth: m.basic },
      );
      expect(v1.body.email).toBe('reward@example.com');
      const v1Again = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: 'v1-payout' } }, { auth: m.basic });
      expect([v1Again.body.referral_code, v1Again.body.email]).toEqual([v1.body.referral_code, 'reward@example.com']);
      // A new link with no address given still gets the customer's.
      const another = await createWidget(service, m, { name: 'Another campaign' });
      const fresh = await service.post('/v1/referral_codes', { campaign: { id: another.id }, customer: { id: 'payout-adv' } }, { auth: m.basic });
      expect(fresh.body.email).toBe('payout-adv@example.com');
    });

    it('validates input', async () => {
      expect((await service.post('/v2/personal_referral_links', { widget_id: widget.id }, v2())).status).toBe(400);
      expect((await service.post('/v2/personal_referral_links', { widget_id: 999999, email_address: 'a@b.co' }, v2())).status).toBe(404);
      expect((await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: 999999 }, v2())).status).toBe(404);
      expect((await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: 'nope' }, v2())).status).toBe(400);
      const wrongType = await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: 'a@b.co', link_parameters: [1] }, v2());
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.errors).toEqual([expect.objectContaining({ property: 'link_parameters', code: 'wrong_type' })]);
      const deep = await service.post(
        '/v2/personal_referral_links',
        { widget_id: widget.id, email_address: 'a@b.co', link_parameters: { deep: { x: 1 } } },
        v2(),
      );
      expect(deep.status).toBe(400);
      expect(deep.body.errors).toEqual([expect.objectContaining({ property: 'link_parameters', code: 'invalid' })]);
    });
  });

  describe('trackable links', () => {
    it('redirects with the code and parameters, records the click, and drops the offer once blacklisted', async () => {
      const made = await service.post(
        '/v2/personal_referral_links',
        { widget_id: widget.id, email_address: 'click@example.com', link_parameters: { utm: 'adv' } },
        v2(),
      );
      const code = made.body.referral_link.code;
      // Each follow another visitor: one visitor's repeats within 30 minutes are one click (click-admission.ts).
      let visitors = 0;
      const follow = () => fetch(`${service.url}/l/${code}`, { redirect: 'manual', headers: { 'user-agent': `visitor-${(visitors += 1)}` } });
      const r = await follow();
      expect(r.status).toBe(302);
      const location = new URL(r.headers.get('location')!);
      expect(location.origin + location.pathname).toBe('https://shop.example/welcome');
      expect(Object.fromEntries(location.searchParams)).toEqual({ lang: 'en', utm: 'adv', referral_code: code });
      const blacklisted = await service.put(`/admin/merchants/${m.id}/referral_links/${code}/blacklist`, undefined, service.admin);
      expect(blacklisted.status).toBe(200);
      const after = await follow();
      expect(after.status).toBe(302);
      expect(after.headers.get('location')).toBe('https://shop.example/welcome?lang=en');
      const restored = await service.delete(`/admin/merchants/${m.id}/referral_links/${code}/blacklist`, undefined, service.admin);
      expect(restored.status).toBe(200);
      expect(new URL((await follow()).headers.get('location')!).searchParams.get('referral_code')).toBe(code);
      // HEAD answers as GET does, without a click (link previews, uptime checks).
      const head = await fetch(`${service.url}/l/${code}`, { method: 'HEAD', redirect: 'manual' });
      expect(head.status).toBe(302);
      expect(new URL(head.headers.get('location')!).searchParams.get('referral_code')).toBe(code);
      const v1 = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, email: 'click@example.com' }, { auth: m.basic });
      expect(v1.body.referral_code_blacklisted).toBe(false);
      const events = await service.app.get<EventStore>(EVENT_STORE).readStream(`referral-code-${code}`);
      expect(events.filter((e) => e.type === 'ReferralLinkClicked')).toHaveLength(3);
    });

    it("keeps the destination's query byte for byte and its fragment, adds the link's values encoded, and passes the visitor's query on", async () => {
      // A signed destination: its query must reach the shop as written (%20 not +, a bare flag, ~ and an encoded /).
      const own = 'q=a%20b&flag&path=%2Fdeep%2Fer&t=~me&sig=AbC%2B%3D&utm=site';
      const signed = await createWidget(service, m, { name: 'Signed', destination_url: `https://shop.example/p/x?${own}#top` });
      const made = await service.post(
        '/v2/personal_referral_links',
        { widget_id: signed.id, email_address: 'signed@example.com', link_parameters: { utm: 'adv', 'c k': 'a b/c' } },
        v2(),
      );
      const code = made.body.referral_link.code;
      // The visitor's utm_source and x go along; utm and referral_code are the link's, q is the destination's.
      const visitor = 'utm_source=nl&utm=visitor&referral_code=evil&q=zzz&x=1%202';
      const follow = async (query: string) => (await fetch(`${service.url}/l/${code}${query}`, { redirect: 'manual' })).headers.get('location');
      expect(await follow(`?${visitor}`)).toBe(
        `https://shop.example/p/x?q=a%20b&flag&path=%2Fdeep%2Fer&t=~me&sig=AbC%2B%3D&utm_source=nl&x=1%202&utm=adv&c%20k=a%20b%2Fc&referral_code=${code}#top`,
      );
      expect(await follow('')).toBe(
        `https://shop.example/p/x?q=a%20b&flag&path=%2Fdeep%2Fer&t=~me&sig=AbC%2B%3D&utm=adv&c%20k=a%20b%2Fc&referral_code=${code}#top`,
      );
      // Blacklisted: the destination as written and the visitor's utm_*, never the link's values, nor the visitor's in their place.
      expect((await service.put(`/admin/merchants/${m.id}/referral_links/${code}/blacklist`, undefined, service.admin)).status).toBe(200);
      expect(await follow(`?${visitor}`)).toBe(`https://shop.example/p/x?${own}&utm_source=nl&x=1%202#top`);
      expect(await follow('')).toBe(`https://shop.example/p/x?${own}#top`);
      // A link parameter named referral_code (any key may be set) makes no second code: the link's is the one.
      const named = await service.post(
        '/v2/personal_referral_links',
        { widget_id: signed.id, email_address: 'named@example.com', link_parameters: { referral_code: 'SOMEONE-ELSE', a: '1' } },
        v2(),
      );
      const namedCode = named.body.referral_link.code;
      const location = (await fetch(`${service.url}/l/${namedCode}?=x&%3D=y`, { redirect: 'manual' })).headers.get('location')!;
      expect(new URL(location).searchParams.getAll('referral_code')).toEqual([namedCode]);
      expect(location).toBe(`https://shop.example/p/x?q=a%20b&flag&path=%2Fdeep%2Fer&t=~me&sig=AbC%2B%3D&utm=site&%3D=y&a=1&referral_code=${namedCode}#top`);
    });

    it('refuses destinations the URL parser cannot open, and answers 404 without a click for one stored before that check', async () => {
      for (const bad of ['http://xn--a.com/', 'http://a\ufffdb.example/', 'http://xn--zz/']) {
        const made = await service.post(`/admin/merchants/${m.id}/widgets`, { name: 'Bad', destination_url: bad }, service.admin);
        expect([bad, made.status, made.body.errors?.[0]?.property]).toEqual([bad, 400, 'destination_url']);
        const changed = await service.patch(`/admin/merchants/${m.id}/widgets/${widget.id}`, { destination_url: bad }, service.admin);
        expect([bad, changed.status]).toEqual([bad, 400]);
        const endpoint = await service.post(`/admin/merchants/${m.id}/webhook_endpoints`, { url: bad }, service.admin);
        expect([bad, endpoint.status]).toEqual([bad, 400]);
      }
      // A widget whose stored destination does not parse (recorded before the check above).
      const legacy = await createWidget(service, m, { destination_url: 'https://shop.example/' });
      const store = service.app.get<EventStore>(EVENT_STORE);
      const [created] = await store.readStream(`widget-${legacy.id}`);
      await store.append(
        `widget-${legacy.id}`,
        [
          {
            type: 'WidgetChanged',
            data: { widgetId: legacy.id, merchantId: m.id, changes: { destinationUrl: 'http://xn--a.com/' }, changedAt: new Date().toISOString() },
            metadata: created.metadata,
          },
        ],
        0,
      );
      const code = (await service.post('/v2/personal_referral_links', { widget_id: legacy.id, email_address: 'legacy@example.com' }, v2())).body.referral_link
        .code;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await service.get(`/v2/widgets/${legacy.id}`, v2())).body.widget).toBeDefined();
      const r = await fetch(`${service.url}/l/${code}`, { redirect: 'manual' });
      expect(r.status).toBe(404);
      expect(((await r.json()) as { errors: unknown[] }).errors).toHaveLength(1);
      expect((await store.readStream(`referral-code-${code}`)).filter((e) => e.type === 'ReferralLinkClicked')).toEqual([]);
    });

    it('answers 404 for an unknown code', async () => {
      const r = await fetch(`${service.url}/l/unknown99`, { redirect: 'manual' });
      expect(r.status).toBe(404);
      expect(((await r.json()) as { errors: unknown[] }).errors).toHaveLength(1);
    });
  });

  describe('vanity links', () => {
    it('creates a vanity PURL with a chosen code, once', async () => {
      const c = await customer('vain');
      const made = await service.post(`/admin/merchants/${m.id}/vanity_links`, { widget_id: widget.id, code: 'ada-rocks', customer_id: c.id }, service.admin);
      expect(made.status).toBe(201);
      expect(made.body.referral_link).toMatchObject({ type: 'vanity_personal_url', code: 'ada-rocks', origin: `${service.url}/v2/customers/${c.id}` });
      expect(
        (await service.post(`/admin/merchants/${m.id}/vanity_links`, { widget_id: widget.id, code: 'ada-rocks', email_address: 'x@y.co' }, service.admin))
          .status,
      ).toBe(409);
      expect(
        (await service.post(`/admin/merchants/${m.id}/vanity_links`, { widget_id: widget.id, code: 'bad code!', email_address: 'x@y.co' }, service.admin))
          .status,
      ).toBe(400);
    });

    it("is the advocate's referral code for that widget: v1 and v2 return it rather than make a second PURL", async () => {
      const c = await customer('vain-2');
      await service.post(`/admin/merchants/${m.id}/vanity_links`, { widget_id: widget.id, code: 'vain-two', customer_id: c.id }, service.admin);
      await service.post(
        `/admin/merchants/${m.id}/vanity_links`,
        { widget_id: widget.id, code: 'by-mail', email_address: 'Vain.Mail@example.com' },
        service.admin,
      );
      const v1 = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, customer: { id: 'vain-2' } }, { auth: m.basic });
      expect(v1.body).toMatchObject({ referral_code: 'vain-two', type: 'vanity_personal_url' });
      const viaV2 = await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: c.id }, v2());
      expect(viaV2.body.referral_link).toMatchObject({ code: 'vain-two', type: 'vanity_personal_url' });
      const byMail = await service.post('/v1/referral_codes', { campaign: { id: widget.id }, email: 'vain.mail@example.com' }, { auth: m.basic });
      expect(byMail.body.referral_code).toBe('by-mail');
      // A coupon it holds is its own on the next call too (not "associated with another referral code").
      await service.post(`/admin/merchants/${m.id}/coupon_banks`, { name: 'Vain', codes: ['VAIN-1'] }, service.admin);
      for (let i = 0; i < 2; i += 1) {
        const withCoupon = await service.post(
          '/v1/referral_codes',
          { campaign: { id: widget.id }, customer: { id: 'vain-2' }, coupon_code: 'VAIN-1' },
          { auth: m.basic },
        );
        expect({ i, status: withCoupon.status, codes: withCoupon.body.coupon_codes }).toEqual({ i, status: 200, codes: ['VAIN-1'] });
      }
      // Another widget has no vanity link for them: a PURL of its own.
      const other = await createWidget(service, m);
      expect((await service.post('/v1/referral_codes', { campaign: { id: other.id }, customer: { id: 'vain-2' } }, { auth: m.basic })).body.type).toBe(
        'customer_personal_url',
      );
    });

    it('are one code whatever their case: a vanity code in another case is refused, and the code is found in any case', async () => {
      const a = await customer('case-a');
      const b = await customer('case-b');
      const made = await service.post(
        `/admin/merchants/${m.id}/vanity_links`,
        { widget_id: widget.id, code: 'Alan-Outdoors', customer_id: a.id },
        service.admin,
      );
      expect(made.status).toBe(201);
      const clash = await service.post(
        `/admin/merchants/${m.id}/vanity_links`,
        { widget_id: widget.id, code: 'alan-outdoors', customer_id: b.id },
        service.admin,
      );
      expect(clash.status).toBe(409);
      expect(clash.body.errors).toEqual([
        'referral code alan-outdoors differs in case alone from the existing code Alan-Outdoors (codes are compared case-insensitively)',
      ]);
      // Codes are unique across the service, and the trackable link names no merchant: another merchant's too.
      const other = await createMerchant(service, 'Other shop');
      const otherWidget = await createWidget(service, other);
      expect(
        (
          await service.post(
            `/admin/merchants/${other.id}/vanity_links`,
            { widget_id: otherWidget.id, code: 'ALAN-OUTDOORS', email_address: 'o@example.com' },
            service.admin,
          )
        ).status,
      ).toBe(409);
      // Ten racing requests for case variants of one new code: one link.
      const race = await Promise.all(
        ['Race-Case', 'race-case', 'RACE-CASE', 'rACE-cASE', 'Race-case'].map((code, i) =>
          service.post(`/admin/merchants/${m.id}/vanity_links`, { widget_id: widget.id, code, email_address: `race-${i}@example.com` }, service.admin),
        ),
      );
      expect(race.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);

      expect((await service.get('/v2/referral_links/ALAN-OUTDOORS', v2())).body.referral_link).toMatchObject({
        code: 'Alan-Outdoors',
        type: 'vanity_personal_url',
      });
      expect((await service.get('/v2/referral_links/ALAN-OUTDOORS', { auth: other.bearer })).status).toBe(404);
      const visit = await fetch(`${service.url}/l/alan-OUTDOORS`, { redirect: 'manual' });
      expect(visit.status).toBe(302);
      expect(new URL(visit.headers.get('location')!).searchParams.get('referral_code')).toBe('Alan-Outdoors');
      const store = service.app.get<EventStore>(EVENT_STORE);
      expect((await store.readStream('referral-code-Alan-Outdoors')).filter((e) => e.type === 'ReferralLinkClicked')).toHaveLength(1);
      const patched = await service.patch('/v2/personal_referral_links/alan-outdoors', { link_parameters: { utm: 'case' } }, v2());
      expect(patched.status).toBe(200);
      expect(patched.body.referral_link).toMatchObject({ code: 'Alan-Outdoors', link_parameters: '{"utm":"case"}' });
      const blacklisted = await service.put(`/admin/merchants/${m.id}/referral_links/ALAN-outdoors/blacklist`, undefined, service.admin);
      expect(blacklisted.body.referral_link).toMatchObject({ code: 'Alan-Outdoors', blacklisted: true });
      expect(
        (await service.delete(`/admin/merchants/${m.id}/referral_links/alan-outdoors/blacklist`, undefined, service.admin)).body.referral_link.blacklisted,
      ).toBe(false);
    });

    it('draws a code again when a vanity code holds it in another case', async () => {
      const c = await customer('drawn-after-vanity');
      expect(
        (
          await service.post(
            `/admin/merchants/${m.id}/vanity_links`,
            { widget_id: widget.id, code: 'SUMMER24', email_address: 'summer@example.com' },
            service.admin,
          )
        ).status,
      ).toBe(201);
      const source = service.app.get<CodeSource>(CODE_SOURCE);
      const next = source.next.bind(source);
      const drawn = ['summer24'];
      source.next = () => drawn.shift() ?? next();
      try {
        const link = (await service.post('/v2/personal_referral_links', { widget_id: widget.id, customer_id: c.id }, v2())).body.referral_link;
        expect(drawn).toEqual([]);
        expect(link.code).not.toBe('summer24');
        expect((await service.get('/v2/referral_links/summer24', v2())).body.referral_link.code).toBe('SUMMER24');
      } finally {
        source.next = next;
      }
    });
  });
});
