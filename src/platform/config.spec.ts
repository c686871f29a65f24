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

describe('settings refused at start-up', () => {
  it.each([
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'xml'],
    ['PUBLIC_BASE_URL', 'not-a-url'],
    ['PUBLIC_BASE_URL', 'https://api.example.com/?x=1'],
    ['PUBLIC_LINK_BASE', 'ftp:/bad'],
    ['PUBLIC_LINK_BASE', 'https://user:pw@go.example.com'],
    ['PORT', '65536'],
    ['SCHEDULER_TICK_MS', '0'],
    ['AUTH_FAILURES_PER_MINUTE', '0'],
    ['ACCEPT_EVENT_LOSS', 'maybe'],
  ])('refuses %s=%s, naming the setting', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('refuses an SMTP_URL that is not one without repeating it (it may hold a password)', () => {
    let message = '';
    try {
      loadConfig({ SMTP_URL: 'user:s3cret-password@mail' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^SMTP_URL must be/);
    expect(message).not.toContain('s3cret');
  });

  it('takes the values the documentation lists', () => {
    const config = loadConfig({ LOG_LEVEL: 'DEBUG', LOG_FORMAT: 'text', PUBLIC_BASE_URL: 'https://api.example.com/referrals/', PUBLIC_LINK_BASE: 'https://go.example.com', SMTP_URL: 'smtps://u:p@mail.example.com:465' });
    expect(config).toMatchObject({ logLevel: 'DEBUG', logFormat: 'text', publicBaseUrl: 'https://api.example.com/referrals', publicLinkBase: 'https://go.example.com', smtpUrl: 'smtps://u:p@mail.example.com:465' });
    for (const level of ['error', 'warn', 'info', 'debug', 'verbose', 'trace']) expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
  });
});
