import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { SqliteEventStore } from '../../platform/event-store/sqlite-event-store.js';
import { PersonalDataEventStore, SqliteKeyStore } from '../../platform/personal-data/index.js';
import { given } from '../../../test/support/decider-spec.js';
import { personalLinkClaimStream, ReferralLinkCreated, referralLinkDecider } from './referral-link.js';

const now = new Date('2026-05-01T00:00:00.000Z');
const created: ReferralLinkCreated = {
  type: 'ReferralLinkCreated',
  data: {
    code: 'abcd2345',
    merchantId: 1,
    widgetId: 3,
    type: 'customer_personal_url',
    advocateCustomerId: 11,
    advocateEmail: 'ann@example.com',
    shareId: null,
    reminderEmailId: null,
    linkParameters: { a: '1' },
    ipAddress: null,
    createdAt: now.toISOString(),
  },
};
const at = now.toISOString();

describe('referral link decider', () => {
  it('creates a link once', () => {
    const { createdAt: _c, type, ...rest } = created.data;
    given(referralLinkDecider, [])
      .when({ type: 'CreateReferralLink', linkType: type, ...rest, now })
      .then([created]);
    given(referralLinkDecider, [created])
      .when({ type: 'CreateReferralLink', linkType: type, ...rest, now })
      .thenThrows(ConflictError);
  });

  it('replaces parameters only when they differ', () => {
    given(referralLinkDecider, [created])
      .when({ type: 'ReplaceLinkParameters', code: 'abcd2345', merchantId: 1, linkParameters: { a: '1' }, now })
      .then([]);
    given(referralLinkDecider, [created])
      .when({ type: 'ReplaceLinkParameters', code: 'abcd2345', merchantId: 1, linkParameters: null, now })
      .then([{ type: 'ReferralLinkParametersReplaced', data: { code: 'abcd2345', merchantId: 1, linkParameters: null, replacedAt: at } }]);
  });

  it("treats another merchant's code as unknown, but records anyone's click", () => {
    given(referralLinkDecider, [created]).when({ type: 'Blacklist', code: 'abcd2345', merchantId: 2, blacklisted: true, now }).thenThrows(NotFoundError);
    given(referralLinkDecider, [created])
      .when({ type: 'RecordClick', code: 'abcd2345', ipAddress: '1.2.3.4', userAgent: null, referrer: null, now })
      .then([
        {
          type: 'ReferralLinkClicked',
          data: { code: 'abcd2345', merchantId: 1, ipAddress: '1.2.3.4', userAgent: null, referrer: null, blacklisted: false, clickedAt: at },
        },
      ]);
    given(referralLinkDecider, []).when({ type: 'RecordClick', code: 'zzzz', ipAddress: null, userAgent: null, referrer: null, now }).thenThrows(NotFoundError);
  });

  it('blacklists and un-blacklists, each only when it changes something; clicks say so', () => {
    const blacklisted = { type: 'ReferralLinkBlacklisted' as const, data: { code: 'abcd2345', merchantId: 1, at } };
    given(referralLinkDecider, [created]).when({ type: 'Blacklist', code: 'abcd2345', merchantId: 1, blacklisted: true, now }).then([blacklisted]);
    given(referralLinkDecider, [created, blacklisted]).when({ type: 'Blacklist', code: 'abcd2345', merchantId: 1, blacklisted: true, now }).then([]);
    given(referralLinkDecider, [created, blacklisted])
      .when({ type: 'Blacklist', code: 'abcd2345', merchantId: 1, blacklisted: false, now })
      .then([{ type: 'ReferralLinkUnblacklisted', data: { code: 'abcd2345', merchantId: 1, at } }]);
    const click = given(referralLinkDecider, [created, blacklisted])
      .when({ type: 'RecordClick', code: 'abcd2345', ipAddress: null, userAgent: null, referrer: null, now })
      .events();
    expect((click[0].data as { blacklisted: boolean }).blacklisted).toBe(true);
  });

  it('records a coupon association once, with the advocate', () => {
    const command = { type: 'RecordCouponAssociation' as const, code: 'abcd2345', merchantId: 1, couponCode: 'SPR-1', couponBankId: 9, now };
    const events = given(referralLinkDecider, [created]).when(command).events();
    expect(events).toEqual([
      {
        type: 'CouponAssociated',
        data: { code: 'abcd2345', merchantId: 1, widgetId: 3, advocateCustomerId: 11, couponCode: 'SPR-1', couponBankId: 9, associatedAt: at },
      },
    ]);
    given(referralLinkDecider, [created, events[0]]).when(command).then([]);
  });

  it('keys personal-link claims by advocate, an address by its keyed hash (case-insensitive), never the address', async () => {
    const layer = await PersonalDataEventStore.open(new SqliteEventStore({ path: ':memory:' }), new SqliteKeyStore(':memory:'), {});
    try {
      const byEmail = personalLinkClaimStream(1, 3, { emailKey: layer.emailKey(1, 'Ann@Example.com') });
      expect(byEmail).toBe(personalLinkClaimStream(1, 3, { emailKey: layer.emailKey(1, 'ann@example.com') }));
      expect(byEmail).toMatch(/^personal-link-1-3-k[A-Za-z0-9_-]{43}$/);
      expect(byEmail).not.toContain(Buffer.from('ann@example.com').toString('base64url'));
    } finally {
      await layer.close();
    }
    expect(personalLinkClaimStream(1, 3, { customerId: 5 })).not.toBe(personalLinkClaimStream(1, 4, { customerId: 5 }));
  });
});
