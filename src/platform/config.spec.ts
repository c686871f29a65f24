import { loadConfig } from './config.js';
import { LEASE_STREAM } from './instance/eventstoredb-lease-store.js';
import { liveStorage, SANDBOX_STREAMS } from './storage.js';

describe('storage names in the configuration', () => {
  it('defaults to no stream namespace and the database "referral", the sandbox and the storage lease excluded from the live streams', () => {
    const config = loadConfig({});
    expect([config.eventStoreNamespace, config.mongoDatabase]).toEqual(['', 'referral']);
    expect(liveStorage(config)).toMatchObject({ streamNamespace: '', mongoDatabase: 'referral', foreignStreams: [SANDBOX_STREAMS, LEASE_STREAM] });
  });

  it('takes EVENTSTORE_NAMESPACE and MONGO_DATABASE for the live storage', () => {
    const config = loadConfig({ EVENTSTORE_NAMESPACE: 'shop-eu.1-', MONGO_DATABASE: 'shop_eu-1' });
    expect(liveStorage(config)).toMatchObject({ streamNamespace: 'shop-eu.1-', mongoDatabase: 'shop_eu-1', foreignStreams: [SANDBOX_STREAMS, LEASE_STREAM] });
  });

  it.each([
    ['EVENTSTORE_NAMESPACE', '$system-'],
    ['EVENTSTORE_NAMESPACE', '-leading-dash'],
    ['EVENTSTORE_NAMESPACE', 'has space-'],
    ['EVENTSTORE_NAMESPACE', 'x'.repeat(48) + '-'],
    // No separator at its end: `shop` would own another deployment's `shop2…` streams too.
    ['EVENTSTORE_NAMESPACE', 'shop'],
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
    // Node fires a timer longer than 2^31 - 1 ms after 1 ms: the sandbox reset ran non-stop, the shutdown grace was 6 ms.
    ['SANDBOX_RESET_INTERVAL_MS', '2147483648'],
    ['SHUTDOWN_GRACE_MS', '3000000000'],
    ['SCHEDULER_TICK_MS', '2147483648'],
    ['WEBHOOK_TIMEOUT_MS', '2147483648'],
    // Digits only: Number() reads these as 1000, 16 and 5.
    ['PORT', '1e3'],
    ['REMINDER_DELAY_MS', '0x10'],
    ['READY_MAX_LAG_EVENTS', ' 5'],
    ['AUTH_FAILURES_PER_MINUTE', '0'],
    ['ACCEPT_EVENT_LOSS', 'maybe'],
    // 0 turns Node's timeouts off: a slow body would hold its connection for ever.
    ['REQUEST_TIMEOUT_MS', '0'],
    ['CONNECTION_TIMEOUT_MS', '0'],
    ['MAX_CONNECTIONS', '0'],
    ['METRICS_PUBLIC', 'maybe'],
    // A hop count cannot tell the proxy from a client (Fastify trusts no peer for one).
    ['TRUST_PROXY', '1'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', 'proxy.internal'],
    ['CLICKS_PER_MINUTE_PER_ADDRESS', '0'],
    ['BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS', '0'],
    ['BROWSER_CAPTURES_PER_MINUTE_PER_ADDRESS', '1.5'],
    ['BROWSER_SHARES_PER_MINUTE_PER_ADDRESS', '0'],
    ['BROWSER_PURCHASES_PER_MINUTE_PER_ADDRESS', '-1'],
    ['SANDBOX_BODY_LIMIT', '0'],
    ['SANDBOX_BODY_LIMIT', '1048577'],
    ['SANDBOX_MAX_EVENTS', '0'],
    ['SANDBOX_MAX_BYTES', '1e6'],
    ['SANDBOX_WRITES_PER_MINUTE_PER_ADDRESS', '0'],
    ['SANDBOX_WRITES_PER_MINUTE_PER_KEY', '-1'],
    ['INSTANCE_LEASE_TTL_MS', '0'],
    ['INSTANCE_LEASE_RENEW_MS', '2147483648'],
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

  it('refuses a server connection string of another scheme, naming the setting without repeating the value', () => {
    for (const [name, value] of [
      ['MONGO_URL', 'http://user:s3cret@db.example.com'],
      ['MONGO_URL', 'mongodb:/missing-slash'],
      ['EVENTSTORE_URL', 'https://user:s3cret@esdb.example.com:2113'],
    ]) {
      expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} must be`));
      expect(() => loadConfig({ [name]: value })).not.toThrow(/s3cret/);
    }
    expect(loadConfig({ MONGO_URL: 'mongodb://a:27017,b:27017/x?replicaSet=rs', EVENTSTORE_URL: 'esdb://localhost:2113?tls=false' })).toMatchObject({
      mongoUrl: 'mongodb://a:27017,b:27017/x?replicaSet=rs',
      eventStoreUrl: 'esdb://localhost:2113?tls=false',
    });
  });

  it('refuses a link base with a user part without repeating it (the user part may hold a password)', () => {
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'https://user:hunter2pw@api.example.com/' })).toThrow(/^PUBLIC_BASE_URL must be .* got a URL with a user part$/);
  });

  it('takes the longest timers Node keeps, and durations beyond them that are no timers', () => {
    expect(loadConfig({ SANDBOX_RESET_INTERVAL_MS: '2147483647', SHUTDOWN_GRACE_MS: '0' })).toMatchObject({
      sandboxResetIntervalMs: 2147483647,
      shutdownGraceMs: 0,
    });
    expect(loadConfig({ REMINDER_DELAY_MS: String(30 * 86_400_000) }).reminderDelayMs).toBe(30 * 86_400_000);
  });

  it('bounds the sandbox by default, and takes other bounds', () => {
    expect(loadConfig({})).toMatchObject({
      sandboxBodyLimit: 32 * 1024,
      sandboxMaxEvents: 10_000,
      sandboxMaxBytes: 8 * 1024 * 1024,
      sandboxWritesPerMinutePerAddress: 60,
      sandboxWritesPerMinutePerKey: 600,
    });
    const config = loadConfig({
      SANDBOX_BODY_LIMIT: '1048576',
      SANDBOX_MAX_EVENTS: '5',
      SANDBOX_MAX_BYTES: '4096',
      SANDBOX_WRITES_PER_MINUTE_PER_ADDRESS: '3',
      SANDBOX_WRITES_PER_MINUTE_PER_KEY: '7',
    });
    expect(config).toMatchObject({
      sandboxBodyLimit: 1048576,
      sandboxMaxEvents: 5,
      sandboxMaxBytes: 4096,
      sandboxWritesPerMinutePerAddress: 3,
      sandboxWritesPerMinutePerKey: 7,
    });
  });

  it('takes the values the documentation lists', () => {
    const config = loadConfig({
      LOG_LEVEL: 'DEBUG',
      LOG_FORMAT: 'text',
      PUBLIC_BASE_URL: 'https://api.example.com/referrals/',
      PUBLIC_LINK_BASE: 'https://go.example.com',
      SMTP_URL: 'smtps://u:p@mail.example.com:465',
    });
    expect(config).toMatchObject({
      logLevel: 'DEBUG',
      logFormat: 'text',
      publicBaseUrl: 'https://api.example.com/referrals',
      publicLinkBase: 'https://go.example.com',
      smtpUrl: 'smtps://u:p@mail.example.com:465',
    });
    for (const level of ['error', 'warn', 'info', 'debug', 'verbose', 'trace']) expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it('takes the storage lease times (15 s, renewed every 5 s, by default) and refuses a renewal slower than half the TTL', () => {
    expect(loadConfig({})).toMatchObject({ instanceLeaseTtlMs: 15_000, instanceLeaseRenewMs: 5_000 });
    expect(loadConfig({ INSTANCE_LEASE_TTL_MS: '4000', INSTANCE_LEASE_RENEW_MS: '2000' })).toMatchObject({
      instanceLeaseTtlMs: 4000,
      instanceLeaseRenewMs: 2000,
    });
    // The default renewal (5 s) does not fit a 6 s lease: one failed renewal would let it lapse.
    expect(() => loadConfig({ INSTANCE_LEASE_TTL_MS: '6000' })).toThrow(/^INSTANCE_LEASE_RENEW_MS must be at most half of INSTANCE_LEASE_TTL_MS/);
    expect(() => loadConfig({ INSTANCE_LEASE_TTL_MS: '10000', INSTANCE_LEASE_RENEW_MS: '5001' })).toThrow(/INSTANCE_LEASE_RENEW_MS/);
  });
});

describe('edge settings', () => {
  it('defaults to timeouts on, a connection cap, no trusted proxy and /metrics closed', () => {
    expect(loadConfig({})).toMatchObject({
      requestTimeoutMs: 30_000,
      connectionTimeoutMs: 60_000,
      maxConnections: 4096,
      trustProxy: undefined,
      metricsPublic: false,
    });
  });

  it('takes TRUST_PROXY as addresses, CIDR ranges and named ranges', () => {
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1,fd00::/8,loopback' }).trustProxy).toEqual([
      '10.0.0.1',
      '192.168.0.0/16',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });
});
