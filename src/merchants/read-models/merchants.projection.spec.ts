import { ProjectedLog } from '../../../test/support/projection-spec.js';
import {
  AllowedOriginDoc,
  allowedOriginsCollection,
  allowedOriginsProjection,
  MerchantDoc,
  merchantsCollection,
  merchantsProjection,
} from './merchants.projection.js';

const registered = (merchantId: number, publishableKey?: string) =>
  [
    `merchant-${merchantId}`,
    'MerchantRegistered',
    {
      merchantId,
      name: 'Shop',
      accessKey: `ak_${merchantId}`,
      secretKey: 'sk',
      ...(publishableKey ? { publishableKey } : {}),
      settings: { canSeeRecipients: false },
      registeredAt: '2026-03-01T00:00:00.000Z',
    },
  ] as [string, string, unknown];
const origins = (merchantId: number, allowedOrigins: string[], removedOrigins: string[]) =>
  [`merchant-${merchantId}`, 'MerchantAllowedOriginsChanged', { merchantId, allowedOrigins, removedOrigins, changedAt: '2026-03-02T00:00:00.000Z' }] as [
    string,
    string,
    unknown,
  ];

describe('merchants read models: publishable keys and allowed origins', () => {
  let log: ProjectedLog;
  beforeEach(() => {
    log = new ProjectedLog([merchantsProjection, allowedOriginsProjection]);
  });
  afterEach(() => log.close());

  it('finds a merchant by its publishable key until the key is rotated; a merchant registered before keys has none', async () => {
    await log.apply(registered(1, 'pk_first_key_0001'), registered(2));
    const merchants = log.collection<MerchantDoc>(merchantsCollection);
    expect((await merchants.findOne({ publishable_key: 'pk_first_key_0001' }))?.id).toBe(1);
    expect((await merchants.findOne({ id: 2 }))?.publishable_key).toBeUndefined();
    await log.apply([
      'merchant-1',
      'MerchantPublishableKeyRotated',
      { merchantId: 1, publishableKey: 'pk_second_key_0002', rotatedAt: '2026-03-03T00:00:00.000Z' },
    ]);
    expect(await merchants.findOne({ publishable_key: 'pk_first_key_0001' })).toBeNull();
    expect((await merchants.findOne({ publishable_key: 'pk_second_key_0002' }))?.id).toBe(1);
  });

  it('keeps one document per merchant and allowed origin, and drops the ones a new list removes', async () => {
    await log.apply(registered(1), registered(2), origins(1, ['https://a.example', 'https://both.example'], []), origins(2, ['https://both.example'], []));
    const byOrigin = log.collection<AllowedOriginDoc>(allowedOriginsCollection);
    const merchantsOf = async (origin: string) => (await byOrigin.list({ where: { origin }, limit: 10 })).map((d) => d.merchant_id).sort();
    expect([await merchantsOf('https://a.example'), await merchantsOf('https://both.example')]).toEqual([[1], [1, 2]]);
    await log.apply(origins(1, ['https://c.example'], ['https://a.example', 'https://both.example']));
    expect([await merchantsOf('https://a.example'), await merchantsOf('https://both.example'), await merchantsOf('https://c.example')]).toEqual([[], [2], [1]]);
    expect((await log.collection<MerchantDoc>(merchantsCollection).findOne({ id: 1 }))?.allowed_origins).toEqual(['https://c.example']);
  });
});
