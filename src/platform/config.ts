/** Service configuration, read once from the environment. */
import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  adminToken: string | undefined;
  eventStoreUrl: string | undefined;
  mongoUrl: string | undefined;
  /** Base of the API links and next_page URLs; derived from each request when unset. */
  publicBaseUrl: string | undefined;
  /** Base of trackable links (`<base>/<code>`). */
  publicLinkBase: string | undefined;
  logLevel: string;
  /** SMTP server for outgoing email (nodemailer URL); unset = messages stay in the admin outbox. */
  smtpUrl: string | undefined;
  /** From address of the emails the service sends. */
  emailFrom: string;
  /** Delay between a share and its reminder email (default 3 days). */
  reminderDelayMs: number;
  /** How often due reminders and queued emails are looked for. */
  schedulerTickMs: number;
  /** Bad credentials one client address may send per minute before it is refused with 429. */
  authFailuresPerMinute: number;
}

export const CONFIG = Symbol('Config');

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
  return n;
}

function optional(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: int(env.PORT, 3000, 'PORT'),
    host: env.HOST || '0.0.0.0',
    dataDir: resolve(env.DATA_DIR || './data'),
    adminToken: optional(env.ADMIN_TOKEN),
    eventStoreUrl: optional(env.EVENTSTORE_URL),
    mongoUrl: optional(env.MONGO_URL),
    publicBaseUrl: optional(env.PUBLIC_BASE_URL)?.replace(/\/+$/, ''),
    publicLinkBase: optional(env.PUBLIC_LINK_BASE)?.replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL || 'info',
    smtpUrl: optional(env.SMTP_URL),
    emailFrom: env.EMAIL_FROM || 'referrals@localhost',
    reminderDelayMs: int(env.REMINDER_DELAY_MS, 3 * 24 * 60 * 60 * 1000, 'REMINDER_DELAY_MS'),
    schedulerTickMs: int(env.SCHEDULER_TICK_MS, 1000, 'SCHEDULER_TICK_MS'),
    authFailuresPerMinute: int(env.AUTH_FAILURES_PER_MINUTE, 10, 'AUTH_FAILURES_PER_MINUTE'),
  };
}
