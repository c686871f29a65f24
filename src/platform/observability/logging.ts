/**
 * The service's log: Nest's own ConsoleLogger, one JSON object a line by default (LOG_FORMAT=json),
 * with structured fields at the top level, and the levels from LOG_LEVEL. Values under keys that
 * name credentials are masked wherever they appear in structured fields, as a second line of
 * defence: the access log never writes headers or bodies in the first place.
 */
import { ConsoleLogger, LogLevel } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Config } from '../config.js';

/** Keys masked at any depth of a structured log field (case-insensitive). */
export const REDACTED_LOG_KEYS = ['authorization', 'cookie', 'password', 'secret', 'secret_key', 'secretKey', 'token', 'access_token', 'admin_token'];

const ORDER: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** LOG_LEVEL (error, warn, info, debug, verbose) as the set of Nest levels it enables. */
export function logLevels(level: string): LogLevel[] {
  const name = level.toLowerCase() === 'info' ? 'log' : level.toLowerCase() === 'trace' ? 'verbose' : level.toLowerCase();
  const at = ORDER.indexOf(name as LogLevel);
  return ORDER.slice(0, at < 0 ? ORDER.indexOf('log') + 1 : at + 1);
}

/**
 * Set while a sandbox generation is built or closed (and so in the timers it starts): Nest's logger
 * is process-wide, and the generation's lines would otherwise read as the live service's.
 */
export const sandboxLogScope = new AsyncLocalStorage<true>();

/** Nest's start-up and shutdown chatter, left out for sandbox generations (one set per reset); their warnings and errors stay. */
const FRAMEWORK_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);
const KEPT_LEVELS = new Set<LogLevel>(['fatal', 'error', 'warn']);

class ServiceLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context = '',
    logLevel: LogLevel = 'log',
    ...rest: [('stdout' | 'stderr')?, unknown?, Record<string, unknown>?]
  ): void {
    if (sandboxLogScope.getStore()) {
      if (FRAMEWORK_CONTEXTS.has(context) && !KEPT_LEVELS.has(logLevel)) return;
      if (!context.startsWith('Sandbox')) context = context ? `Sandbox/${context}` : 'Sandbox';
    }
    super.printMessages(messages, context, logLevel, ...rest);
  }
}

export function createLogger(config: Pick<Config, 'logFormat' | 'logLevel'>): ConsoleLogger {
  return new ServiceLogger({
    json: config.logFormat === 'json',
    logLevels: logLevels(config.logLevel),
    flattenParams: true,
    redact: REDACTED_LOG_KEYS,
  });
}
