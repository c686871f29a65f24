/** Service configuration, read once from the environment. */
import { isIP } from 'node:net';
import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  adminToken: string | undefined;
  eventStoreUrl: string | undefined;
  /** Prefix of the live service's stream names in EventStoreDB ('' = none); see docs/operations.md. */
  eventStoreNamespace: string;
  mongoUrl: string | undefined;
  /** The live service's MongoDB database (sandbox generations add a suffix to it). */
  mongoDatabase: string;
  /** Base of the API links and next_page URLs; derived from each request when unset. */
  publicBaseUrl: string | undefined;
  /** Base of trackable links (`<base>/<code>`). */
  publicLinkBase: string | undefined;
  /** Where this app is mounted on the service's origin: unset for the live API, '/sandbox' for a sandbox generation. */
  mountPath?: string;
  /**
   * Mixed into the key v2 tokens are signed with (src/platform/auth/tokens.ts): unset for the live
   * API; the process's sandbox context for its sandbox, so that no other run's tokens open it.
   */
  tokenKeyContext?: string;
  logLevel: string;
  /** SMTP server for outgoing email (nodemailer URL); unset = messages stay in the admin outbox. */
  smtpUrl: string | undefined;
  /** From address of the emails the service sends. */
  emailFrom: string;
  /** Delay between a share and its reminder email (default 3 days). */
  reminderDelayMs: number;
  /** How often due reminders and queued emails are looked for. */
  schedulerTickMs: number;
  /** How long an email whose delivery failed waits before it is tried again. */
  emailRetryIntervalMs: number;
  /** Bad credentials one client address may send per minute before it is refused with 429. */
  authFailuresPerMinute: number;
  /** Serve the sandbox under /sandbox/v1 and /sandbox/v2. */
  sandboxEnabled: boolean;
  /** How often the sandbox returns to its baseline (spec §8: 30 minutes). */
  sandboxResetIntervalMs: number;
  /** Largest body of a /sandbox request, in bytes (the live API takes 1 MiB). */
  sandboxBodyLimit: number;
  /** Events one sandbox generation may hold beyond its baseline: a hard ceiling, writes are refused with 429 as it nears. */
  sandboxMaxEvents: number;
  /** Bytes of event JSON one sandbox generation may hold beyond its baseline: likewise. */
  sandboxMaxBytes: number;
  /** Writes (POST, PUT, PATCH, DELETE) one client address may send to the sandbox per minute. */
  sandboxWritesPerMinutePerAddress: number;
  /** Writes per minute to the sandbox with one key (an access key, or the merchant of a token), from every address. */
  sandboxWritesPerMinutePerKey: number;
  /** `json` (one object a line, the default) or `text` (Nest's coloured console format). */
  logFormat: 'json' | 'text';
  /** /ready answers 503 when the read models are more events than this behind the log. */
  readyMaxLagEvents: number;
  /** /ready answers 503 when the oldest event not yet in the read models is older than this. */
  readyMaxLagSeconds: number;
  /** How long a SIGTERM waits for in-flight requests before closing anyway. */
  shutdownGraceMs: number;
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
  metricsToken: string | undefined;
  /** GET /metrics answers without a token; without it and without METRICS_TOKEN, /metrics is 404. */
  metricsPublic: boolean;
  /** Longest a whole request (headers and body) may take before the server answers 408 and closes the connection. */
  requestTimeoutMs: number;
  /** Longest a connection may stay silent (no byte either way) before the server closes it. */
  connectionTimeoutMs: number;
  /** Connections the server holds at once; more are closed as they arrive. */
  maxConnections: number;
  /**
   * Proxies whose X-Forwarded-For is believed (Fastify's `trustProxy`): addresses and CIDR ranges;
   * unset = none, the client address is the socket's.
   */
  trustProxy: string[] | undefined;
  /** Clicks of trackable links recorded per client address per minute; more still redirect, unrecorded. */
  clicksPerMinutePerAddress: number;
  /** Clicks recorded per code per minute, from every address together. */
  clicksPerMinutePerCode: number;
  /** Requests one client address may send to the browser routes per minute (docs/embedding.md). */
  browserRequestsPerMinutePerAddress: number;
  /** Email captures one client address may send through the browser routes per minute. */
  browserCapturesPerMinutePerAddress: number;
  /** Shares one client address may create through the browser routes per minute. */
  browserSharesPerMinutePerAddress: number;
  /** Purchases one client address may report through the browser routes per minute. */
  browserPurchasesPerMinutePerAddress: number;
  /** Webhooks and client-API calls may target private, loopback and link-local addresses (tests, on-premise). */
  webhookAllowPrivateUrls: boolean;
  /** Time between two attempts of a failed webhook or callback (spec §6: once per hour). */
  webhookRetryIntervalMs: number;
  /** How long after the first attempt retries go on (spec §6: at most 24 hours). */
  webhookRetryWindowMs: number;
  /** Timeout of one webhook or client-API request. */
  webhookTimeoutMs: number;
  /**
   * Start although the embedded log lost events it had committed (its audit index recorded them):
   * without it the start is refused (docs/reliability.md).
   */
  acceptEventLoss: boolean;
  /** Server mode: how long the storage lease lasts unless renewed (docs/operations.md, "One process, or several"). */
  instanceLeaseTtlMs: number;
  /** Server mode: how often the holder renews its storage lease (less than the TTL). */
  instanceLeaseRenewMs: number;
}

export const CONFIG = Symbol('Config');

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  // Digits only: Number() also reads 1e3, 0x10 and ' 5'.
  const n = /^[0-9]{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be a non-negative integer, got ${value.slice(0, 40)}`);
  return n;
}

/** The longest a Node timer waits: a longer delay fires after 1 ms (TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;

/** A setting the service waits on with a timer (a tick, a reset, a timeout, the shutdown grace). */
function timerMs(value: string | undefined, fallback: number, name: string, least: 0 | 1): number {
  const n = least === 1 ? positive(value, fallback, name) : int(value, fallback, name);
  if (n > MAX_TIMER_MS) throw new Error(`${name} must be at most ${MAX_TIMER_MS} (about 24.8 days: a longer timer would fire at once), got ${value}`);
  return n;
}

function positive(value: string | undefined, fallback: number, name: string): number {
  const n = int(value, fallback, name);
  if (n < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return n;
}

function atMost(n: number, most: number, name: string, what: string): number {
  if (n > most) throw new Error(`${name} must be at most ${most} (${what}), got ${n}`);
  return n;
}

/** PORT: 0 (the OS picks) to 65535. */
function portNumber(value: string | undefined): number {
  const n = int(value, 3000, 'PORT');
  if (n > 65535) throw new Error(`PORT must be at most 65535, got ${value}`);
  return n;
}

function bool(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new Error(`${name} must be true or false, got ${value}`);
}

function matching(value: string | undefined, fallback: string, pattern: RegExp, name: string, rule: string): string {
  if (value === undefined || value === '') return fallback;
  if (!pattern.test(value)) throw new Error(`${name} must be ${rule}, got ${value}`);
  return value;
}

function optional(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** An absolute http(s) URL that links are built on (a path is kept; a query, fragment or user is refused), without its trailing slashes. */
function linkBase(value: string | undefined, name: string): string | undefined {
  const text = optional(value);
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    // Not repeated when it holds a user part: that may be a password.
    const shown = url && (url.username || url.password) ? 'a URL with a user part' : text.slice(0, 200);
    throw new Error(`${name} must be an absolute http or https URL with no query, fragment or user (links are built on it), got ${shown}`);
  }
  return text.replace(/\/+$/, '');
}

/** Named ranges proxy-addr (behind Fastify's `trustProxy`) knows. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: a comma-separated list of IP addresses, CIDR ranges and named ranges. No hop count:
 * the Fastify in use trusts no peer for one, as a hop count cannot tell the proxy from a client.
 */
function trustProxy(value: string | undefined): string[] | undefined {
  const text = optional(value);
  if (text === undefined) return undefined;
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (PROXY_RANGES.has(entry)) continue;
    const [address, bits, more] = entry.split('/');
    const family = isIP(address ?? '');
    const prefixOk = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (family === 0 || more !== undefined || !prefixOk) {
      throw new Error(
        `TRUST_PROXY must be a comma-separated list of the proxies' IP addresses, CIDR ranges, loopback, linklocal or uniquelocal, got ${entry.slice(0, 60)}`,
      );
    }
  }
  return entries;
}

/** An SMTP URL; refused without repeating it, as it may hold a password. */
function smtpUrl(value: string | undefined): string | undefined {
  const text = optional(value);
  if (text === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(text).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'smtp:' && protocol !== 'smtps:')
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL (its value is not repeated here: it may hold a password)');
  return text;
}

/** A server's connection string, by its scheme alone (the drivers parse the rest); refused without repeating it, as it may hold a password. */
function connectionString(value: string | undefined, name: string, scheme: RegExp, what: string): string | undefined {
  const text = optional(value);
  if (text === undefined) return undefined;
  if (!scheme.test(text)) throw new Error(`${name} must be ${what} (its value is not repeated here: it may hold a password)`);
  return text;
}

/** LOG_FORMAT and LOG_LEVEL alone: read first, so that a refused setting is logged the configured way. */
export function loggingConfig(env: NodeJS.ProcessEnv = process.env): Pick<Config, 'logFormat' | 'logLevel'> {
  return { logLevel: env.LOG_LEVEL || 'info', logFormat: env.LOG_FORMAT === 'text' ? 'text' : 'json' };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Read leniently by loggingConfig, as the logger comes first; refused here, with the other settings.
  matching(env.LOG_LEVEL, 'info', /^(error|warn|info|debug|verbose|trace|log|fatal)$/i, 'LOG_LEVEL', 'error, warn, info, debug or verbose');
  matching(env.LOG_FORMAT, 'json', /^(json|text)$/, 'LOG_FORMAT', 'json or text');
  return {
    ...loggingConfig(env),
    port: portNumber(env.PORT),
    host: env.HOST || '0.0.0.0',
    dataDir: resolve(env.DATA_DIR || './data'),
    adminToken: optional(env.ADMIN_TOKEN),
    eventStoreUrl: connectionString(env.EVENTSTORE_URL, 'EVENTSTORE_URL', /^esdb(\+discover)?:\/\/[^\s/]/i, 'an esdb:// or esdb+discover:// connection string'),
    // Ends with a separator: a prefix `shop` would also own another deployment's `shop2…` streams.
    eventStoreNamespace: matching(
      env.EVENTSTORE_NAMESPACE,
      '',
      /^[A-Za-z0-9][A-Za-z0-9_.-]{0,46}[_.-]$/,
      'EVENTSTORE_NAMESPACE',
      'up to 48 letters, digits, _ . or -, starting with a letter or digit and ending with _ . or - (e.g. shop-eu-)',
    ),
    mongoUrl: connectionString(env.MONGO_URL, 'MONGO_URL', /^mongodb(\+srv)?:\/\/[^\s/]/, 'a mongodb:// or mongodb+srv:// connection string'),
    mongoDatabase: matching(env.MONGO_DATABASE, 'referral', /^[A-Za-z0-9_-]{1,32}$/, 'MONGO_DATABASE', 'up to 32 letters, digits, _ or -'),
    publicBaseUrl: linkBase(env.PUBLIC_BASE_URL, 'PUBLIC_BASE_URL'),
    publicLinkBase: linkBase(env.PUBLIC_LINK_BASE, 'PUBLIC_LINK_BASE'),
    smtpUrl: smtpUrl(env.SMTP_URL),
    emailFrom: env.EMAIL_FROM || 'referrals@localhost',
    reminderDelayMs: int(env.REMINDER_DELAY_MS, 3 * 24 * 60 * 60 * 1000, 'REMINDER_DELAY_MS'),
    // 0 would be a timer of 0 ms: a loop that never rests.
    schedulerTickMs: timerMs(env.SCHEDULER_TICK_MS, 1000, 'SCHEDULER_TICK_MS', 1),
    emailRetryIntervalMs: positive(env.EMAIL_RETRY_INTERVAL_MS, 30_000, 'EMAIL_RETRY_INTERVAL_MS'),
    // 0 would answer the first bad credential 429.
    authFailuresPerMinute: positive(env.AUTH_FAILURES_PER_MINUTE, 10, 'AUTH_FAILURES_PER_MINUTE'),
    sandboxEnabled: bool(env.SANDBOX_ENABLED, true, 'SANDBOX_ENABLED'),
    sandboxResetIntervalMs: timerMs(env.SANDBOX_RESET_INTERVAL_MS, 30 * 60 * 1000, 'SANDBOX_RESET_INTERVAL_MS', 1),
    sandboxBodyLimit: atMost(positive(env.SANDBOX_BODY_LIMIT, 32 * 1024, 'SANDBOX_BODY_LIMIT'), 1024 * 1024, 'SANDBOX_BODY_LIMIT', "the live API's 1 MiB"),
    sandboxMaxEvents: positive(env.SANDBOX_MAX_EVENTS, 10_000, 'SANDBOX_MAX_EVENTS'),
    sandboxMaxBytes: positive(env.SANDBOX_MAX_BYTES, 8 * 1024 * 1024, 'SANDBOX_MAX_BYTES'),
    sandboxWritesPerMinutePerAddress: positive(env.SANDBOX_WRITES_PER_MINUTE_PER_ADDRESS, 60, 'SANDBOX_WRITES_PER_MINUTE_PER_ADDRESS'),
    sandboxWritesPerMinutePerKey: positive(env.SANDBOX_WRITES_PER_MINUTE_PER_KEY, 600, 'SANDBOX_WRITES_PER_MINUTE_PER_KEY'),
    webhookAllowPrivateUrls: bool(env.WEBHOOK_ALLOW_PRIVATE_URLS, false, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
    webhookRetryIntervalMs: positive(env.WEBHOOK_RETRY_INTERVAL_MS, 3_600_000, 'WEBHOOK_RETRY_INTERVAL_MS'),
    webhookRetryWindowMs: int(env.WEBHOOK_RETRY_WINDOW_MS, 86_400_000, 'WEBHOOK_RETRY_WINDOW_MS'),
    webhookTimeoutMs: timerMs(env.WEBHOOK_TIMEOUT_MS, 10_000, 'WEBHOOK_TIMEOUT_MS', 1),
    readyMaxLagEvents: int(env.READY_MAX_LAG_EVENTS, 1000, 'READY_MAX_LAG_EVENTS'),
    readyMaxLagSeconds: int(env.READY_MAX_LAG_SECONDS, 30, 'READY_MAX_LAG_SECONDS'),
    shutdownGraceMs: timerMs(env.SHUTDOWN_GRACE_MS, 15_000, 'SHUTDOWN_GRACE_MS', 0),
    metricsToken: optional(env.METRICS_TOKEN),
    metricsPublic: bool(env.METRICS_PUBLIC, false, 'METRICS_PUBLIC'),
    // 0 would turn the timeout off: a slow body would hold its connection for ever.
    requestTimeoutMs: timerMs(env.REQUEST_TIMEOUT_MS, 30_000, 'REQUEST_TIMEOUT_MS', 1),
    connectionTimeoutMs: timerMs(env.CONNECTION_TIMEOUT_MS, 60_000, 'CONNECTION_TIMEOUT_MS', 1),
    maxConnections: positive(env.MAX_CONNECTIONS, 4096, 'MAX_CONNECTIONS'),
    trustProxy: trustProxy(env.TRUST_PROXY),
    clicksPerMinutePerAddress: positive(env.CLICKS_PER_MINUTE_PER_ADDRESS, 30, 'CLICKS_PER_MINUTE_PER_ADDRESS'),
    clicksPerMinutePerCode: positive(env.CLICKS_PER_MINUTE_PER_CODE, 600, 'CLICKS_PER_MINUTE_PER_CODE'),
    browserRequestsPerMinutePerAddress: positive(env.BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS, 120, 'BROWSER_REQUESTS_PER_MINUTE_PER_ADDRESS'),
    browserCapturesPerMinutePerAddress: positive(env.BROWSER_CAPTURES_PER_MINUTE_PER_ADDRESS, 5, 'BROWSER_CAPTURES_PER_MINUTE_PER_ADDRESS'),
    browserSharesPerMinutePerAddress: positive(env.BROWSER_SHARES_PER_MINUTE_PER_ADDRESS, 10, 'BROWSER_SHARES_PER_MINUTE_PER_ADDRESS'),
    browserPurchasesPerMinutePerAddress: positive(env.BROWSER_PURCHASES_PER_MINUTE_PER_ADDRESS, 10, 'BROWSER_PURCHASES_PER_MINUTE_PER_ADDRESS'),
    acceptEventLoss: bool(env.ACCEPT_EVENT_LOSS, false, 'ACCEPT_EVENT_LOSS'),
    ...leaseTimes(env),
  };
}

/** The renewal must come well within the TTL, or the holder's lease lapses between two renewals. */
function leaseTimes(env: NodeJS.ProcessEnv): Pick<Config, 'instanceLeaseTtlMs' | 'instanceLeaseRenewMs'> {
  const instanceLeaseTtlMs = timerMs(env.INSTANCE_LEASE_TTL_MS, 15_000, 'INSTANCE_LEASE_TTL_MS', 1);
  const instanceLeaseRenewMs = timerMs(env.INSTANCE_LEASE_RENEW_MS, 5_000, 'INSTANCE_LEASE_RENEW_MS', 1);
  if (instanceLeaseRenewMs * 2 > instanceLeaseTtlMs) {
    throw new Error(
      `INSTANCE_LEASE_RENEW_MS must be at most half of INSTANCE_LEASE_TTL_MS (a renewal that fails once must leave time for the next), got ${instanceLeaseRenewMs} and ${instanceLeaseTtlMs}`,
    );
  }
  return { instanceLeaseTtlMs, instanceLeaseRenewMs };
}
