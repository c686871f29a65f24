import { ProjectedLog } from '../../../test/support/projection-spec.js';
import { ConversionDoc, conversionsCollection, conversionsProjection } from './conversions.projection.js';
import { ConversionSource } from '../domain/conversion-events.js';

const attributed = (conversionId: number, referralCode: string, source: ConversionSource) => ({
  conversionId,
  merchantId: 1,
  purchaseId: conversionId - 1,
  widgetId: 2,
  referralCode,
  couponCode: null,
  channel: 'personal_url',
  source,
  advocateCustomerId: 3,
  advocateEmailAddress: 'Advocate@Example.com',
  friendCustomerId: null,
  friendEmailAddress: null,
  createdAt: `2026-05-01T10:00:0${conversionId % 10}.000Z`,
});

describe('conversions read model', () => {
  let log: ProjectedLog;
  beforeEach(() => (log = new ProjectedLog([conversionsProjection])));
  afterEach(() => log.close());

  it("holds one source object per referral link, shared by that link's conversions, and each share's or reminder's own", async () => {
    await log.apply(
      ['purchase-1', 'ConversionAttributed', attributed(11, 'abc', { type: 'referral_link', code: 'abc' })],
      ['purchase-2', 'ConversionAttributed', attributed(12, 'abc', { type: 'referral_link', code: 'abc' })],
      ['purchase-3', 'ConversionAttributed', attributed(13, 'xyz', { type: 'referral_link', code: 'xyz' })],
      ['purchase-4', 'ConversionAttributed', attributed(14, 'abc', { type: 'share', shareId: 7 })],
      ['purchase-5', 'ConversionAttributed', attributed(15, 'abc', { type: 'reminder_email', reminderEmailId: 8 })],
    );
    const docs = await log.collection<ConversionDoc>(conversionsCollection).list({ limit: 10 });
    expect(docs.map((d) => d.source)).toEqual([
      { type: 'referral_link', code: 'abc' },
      { type: 'referral_link', code: 'abc' },
      { type: 'referral_link', code: 'xyz' },
      { type: 'share', shareId: 7 },
      { type: 'reminder_email', reminderEmailId: 8 },
    ]);
    expect(docs[1].source).toBe(docs[0].source);
    expect(docs[2].source).not.toBe(docs[0].source);
    expect(docs.map((d) => [d.referral_code, d.advocate_email_lc])).toEqual(
      Array(5)
        .fill(null)
        .map((_, i) => [i === 2 ? 'xyz' : 'abc', 'advocate@example.com']),
    );
  });
});
