/**
 * Trackable-link clicks are unauthenticated writes kept for ever (issue 28, item 3): headers are
 * cut before they are recorded, one visitor's repeats are one click, and clicks are throttled per
 * address and per code; a follow that is not recorded still redirects. The sandbox's /sandbox/l too.
 */
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.js';
import { ManualClock } from '../../src/platform/clock.js';
import { SAMPLE_MERCHANT } from '../../src/sandbox/sample-data.js';
import { REFERRER_MAX, REPEAT_WINDOW_MS, USER_AGENT_MAX } from '../../src/referral-links/http/click-admission.js';
import { Service, createMerchant, createWidget } from '../support/service.js';

/** A service with one personal link, and a way to follow it and count its recorded clicks. */
async function withLink(env: Record<string, string>) {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  const service = await Service.start({ clock, env });
  const m = await createMerchant(service);
  const widget = await createWidget(service, m);
  const made = await service.post('/v2/personal_referral_links', { widget_id: widget.id, email_address: 'adv@example.com' }, { auth: m.bearer });
  expect(made.status).toBe(201);
  const code: string = made.body.referral_link.code;
  const follow = async (headers: Record<string, string> = {}) => {
    const reply = await service.get(`/l/${code}`, { headers });
    // Every follow reaches the destination, recorded or not.
    expect([reply.status, reply.headers.get('location')?.startsWith('https://shop.example/welcome')]).toEqual([302, true]);
  };
  const clicks = async () =>
    (await service.app.get<EventStore>(EVENT_STORE).readStream(`referral-code-${code}`)).filter((e) => e.type === 'ReferralLinkClicked');
  return { service, clock, follow, clicks };
}

/** Service start-up dominates each test. */
const TEST_MS = 30_000;

describe('trackable-link clicks', () => {
  it(
    'records User-Agent and Referer cut to their documented lengths',
    async () => {
      const { service, follow, clicks } = await withLink({});
      try {
        await follow({ 'user-agent': 'u'.repeat(1000), referer: `https://ref.example/${'r'.repeat(1000)}` });
        const [click] = await clicks();
        const data = click.data as { userAgent: string; referrer: string };
        expect([data.userAgent.length, data.referrer.length]).toEqual([USER_AGENT_MAX, REFERRER_MAX]);
        expect(JSON.stringify(click.data).length).toBeLessThan(USER_AGENT_MAX + REFERRER_MAX + 400);
      } finally {
        await service.stop();
      }
    },
    TEST_MS,
  );

  it(
    "counts one visitor's repeated clicks once within the window, and again after it",
    async () => {
      const { service, clock, follow, clicks } = await withLink({});
      try {
        for (let i = 0; i < 5; i += 1) await follow({ 'user-agent': 'Browser/1' });
        expect(await clicks()).toHaveLength(1);
        // Another browser at the same address is another visitor.
        await follow({ 'user-agent': 'Browser/2' });
        expect(await clicks()).toHaveLength(2);
        clock.advance(REPEAT_WINDOW_MS - 1000);
        await follow({ 'user-agent': 'Browser/1' });
        expect(await clicks()).toHaveLength(2);
        clock.advance(1000);
        await follow({ 'user-agent': 'Browser/1' });
        expect(await clicks()).toHaveLength(3);
      } finally {
        await service.stop();
      }
    },
    TEST_MS,
  );

  it(
    'records at most CLICKS_PER_MINUTE_PER_ADDRESS clicks a minute from one address, still redirecting the rest',
    async () => {
      const { service, clock, follow, clicks } = await withLink({ CLICKS_PER_MINUTE_PER_ADDRESS: '3' });
      try {
        for (let i = 0; i < 8; i += 1) await follow({ 'user-agent': `Bot/${i}` });
        expect(await clicks()).toHaveLength(3);
        clock.advance(60_000);
        await follow({ 'user-agent': 'Bot/next-minute' });
        expect(await clicks()).toHaveLength(4);
      } finally {
        await service.stop();
      }
    },
    TEST_MS,
  );

  it(
    'records at most CLICKS_PER_MINUTE_PER_CODE clicks a minute of one code from all addresses together',
    async () => {
      const { service, follow, clicks } = await withLink({ CLICKS_PER_MINUTE_PER_CODE: '4', TRUST_PROXY: '127.0.0.1' });
      try {
        for (let i = 0; i < 10; i += 1) await follow({ 'x-forwarded-for': `203.0.113.${i + 1}` });
        expect(await clicks()).toHaveLength(4);
        // The addresses are the forwarded ones (TRUST_PROXY), each recorded as its own.
        expect((await clicks()).map((e) => (e.data as { ipAddress: string }).ipAddress)).toEqual(['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4']);
      } finally {
        await service.stop();
      }
    },
    TEST_MS,
  );

  it(
    "applies the same rules to the sandbox's /sandbox/l",
    async () => {
      const service = await Service.start({ sandbox: true, env: { CLICKS_PER_MINUTE_PER_ADDRESS: '2' } });
      try {
        const token = await service.post('/sandbox/v2/tokens/merchant', { access_key: SAMPLE_MERCHANT.accessKey, secret_key: SAMPLE_MERCHANT.secretKey });
        expect(token.status).toBe(200);
        const auth = `Bearer ${token.body.token}`;
        const recorded = async () =>
          (await service.get('/sandbox/v2/audit/events?type=ReferralLinkClicked&limit=100', { auth })).body.results as { data: { userAgent: string } }[];
        const before = (await recorded()).length;
        for (let i = 0; i < 3; i += 1) expect((await service.get('/sandbox/l/alan-outdoors', { headers: { 'user-agent': 'Same/1' } })).status).toBe(302);
        for (let i = 0; i < 4; i += 1)
          expect((await service.get('/sandbox/l/alan-outdoors', { headers: { 'user-agent': `${'x'.repeat(900)}${i}` } })).status).toBe(302);
        const added = (await recorded()).slice(before);
        expect(added.map((e) => e.data.userAgent.length)).toEqual([6, USER_AGENT_MAX]);
      } finally {
        await service.stop();
      }
    },
    TEST_MS,
  );
});
