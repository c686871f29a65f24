/**
 * The service's log: Nest's own ConsoleLogger, one JSON object a line by default (LOG_FORMAT=json),
 * with structured fields at the top level, and the levels from LOG_LEVEL. Values under keys that
 * name credentials are masked wherever they appear in structured fields, as a second line of
 * defence: the access log never writes headers or bodies in the first place.
 */
import { ConsoleLogger, LogLevel } from '@nestjs/common';
import type { Config } from '../platform/config.js';

/** Keys masked at any depth of a structured log field (case-insensitive). */
export const REDACTED_LOG_KEYS = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'secret_key',
  'secretKey',
  'token',
  'access_token',
  'admin_token',
];

const ORDER: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** LOG_LEVEL (error, warn, info, debug, verbose) as the set of Nest levels it enables. */
export function logLevels(level: string): LogLevel[] {
  const name = level.toLowerCase() === 'info' ? 'log' : level.toLowerCase() === 'trace' ? 'verbose' : level.toLowerCase();
  const at = ORDER.indexOf(name as LogLevel);
  return ORDER.slice(0, at < 0 ? ORDER.indexOf('log') + 1 : at + 1);
}

export function createLogger(config: Pick<Config, 'logFormat' | 'logLevel'>): ConsoleLogger {
  return new ConsoleLogger({
    json: config.logFormat === 'json',
    logLevels: logLevels(config.logLevel),
    flattenParams: true,
    redact: REDACTED_LOG_KEYS,
  });
}
