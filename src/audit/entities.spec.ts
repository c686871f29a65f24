import { entitiesOf, merchantOf, parseEntity } from './entities.js';

describe('audit entities', () => {
  it('finds every id field of the data, nested ones too, and the aggregate a stream is named after', () => {
    const conversion = {
      type: 'ConversionAttributed',
      streamName: 'conversion-9',
      data: {
        conversionId: 9,
        merchantId: 1,
        purchaseId: 4,
        widgetId: 45,
        referralCode: 'AB12CD',
        source: { type: 'share', shareId: 7 },
        advocateCustomerId: 123,
        friendCustomerId: null,
        products: [{ customerId: 999 }],
      },
    };
    expect(entitiesOf(conversion).sort()).toEqual(['conversion:9', 'purchase:4', 'widget:45', 'referral_link:AB12CD', 'share:7', 'customer:123'].sort());
    expect(entitiesOf({ type: 'MerchantRenamed', streamName: 'merchant-5', data: { merchantId: 5, name: 'x' } })).toEqual(['merchant:5']);
    expect(entitiesOf({ type: 'WidgetPublished', streamName: 'widget-45', data: { widgetId: 45, merchantId: 1 } })).toEqual(['widget:45']);
    expect(entitiesOf({ type: 'ReferralLinkCreated', streamName: 'referral-code-XY9', data: { code: 'XY9', merchantId: 1, widgetId: 2 } }).sort()).toEqual([
      'referral_link:XY9',
      'widget:2',
    ]);
    expect(entitiesOf({ type: 'WidgetGroupChanged', streamName: 'widget-group-x', data: {} })).toEqual([]);
  });

  it("puts a personal link's claim in the link's history and its customer's (a code field, and the customer in the stream's name)", () => {
    const claim = { type: 'PersonalLinkClaimed', data: { merchantId: 1, widgetId: 2, code: 'AB12CD', claimedAt: 'x' } };
    expect(entitiesOf({ ...claim, streamName: 'personal-link-1-2-c123' }).sort()).toEqual(['customer:123', 'referral_link:AB12CD', 'widget:2']);
    expect(entitiesOf({ ...claim, streamName: 'personal-link-1-2-kq8Tr0cJdVYcVYIK9M1Ysy5Nx6V7TpfFyRtX0DhPUgqw' }).sort()).toEqual([
      'referral_link:AB12CD',
      'widget:2',
    ]);
    // `code` names an entity only there.
    expect(entitiesOf({ type: 'SomethingElse', streamName: 'x-1', data: { code: 'AB12CD' } })).toEqual([]);
  });

  it('parses kind:id and refuses unknown kinds and odd ids', () => {
    expect(parseEntity('customer:123')).toBe('customer:123');
    expect(parseEntity('customer:0123')).toBe('customer:123');
    expect(parseEntity('referral_link:AB12CD')).toBe('referral_link:AB12CD');
    for (const bad of ['customers:1', 'customer', ':1', 'customer:', 'customer:a b', 'widget:1/2']) expect(parseEntity(bad)).toBeUndefined();
  });

  it('gives an event to a merchant only when metadata and data agree', () => {
    expect(merchantOf({ metadata: { merchantId: 3 }, data: { merchantId: 3 } })).toBe(3);
    expect(merchantOf({ metadata: {}, data: { merchantId: 3 } })).toBe(3);
    expect(merchantOf({ metadata: { merchantId: 3 }, data: {} })).toBe(3);
    expect(merchantOf({ metadata: { merchantId: 3 }, data: { merchantId: 4 } })).toBeUndefined();
    expect(merchantOf({ metadata: {}, data: { merchantId: '3' } })).toBeUndefined();
  });
});
