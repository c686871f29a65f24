import { loadConfig } from './config.js';
import { liveStorage, SANDBOX_STREAMS } from './storage.js';

describe('storage names in the configuration', () => {
  it('defaults to no stream namespace and the database "referral", the sandbox excluded from the live streams', () => {
    const config = loadConfig({});
    expect([config.eventStoreNamespace, config.mongoDatabase]).toEqual(['', 'referral']);
    expect(liveStorage(config)).toMatchObject({ streamNamespace: '', mongoDatabase: 'referral', foreignStreams: [SANDBOX_STREAMS] });
  });

  it('takes EVENTSTORE_NAMESPACE and MONGO_DATABASE for the live storage', () => {
    const config = loadConfig({ EVENTSTORE_NAMESPACE: 'shop-eu.1-', MONGO_DATABASE: 'shop_eu-1' });
    expect(liveStorage(config)).toMatchObject({ streamNamespace: 'shop-eu.1-', mongoDatabase: 'shop_eu-1', foreignStreams: [SANDBOX_STREAMS] });
  });

  it.each([
    ['EVENTSTORE_NAMESPACE', '$system-'],
    ['EVENTSTORE_NAMESPACE', '-leading-dash'],
    ['EVENTSTORE_NAMESPACE', 'has space-'],
    ['EVENTSTORE_NAMESPACE', 'x'.repeat(49)],
    ['MONGO_DATABASE', 'with.dot'],
    ['MONGO_DATABASE', 'with/slash'],
    ['MONGO_DATABASE', 'x'.repeat(33)],
  ])('refuses %s=%s at start-up', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
