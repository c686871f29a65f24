import { jest } from '@jest/globals';
import { createLogger, logLevels } from './logging.js';

describe('service log', () => {
  it('maps LOG_LEVEL to Nest levels, info by default', () => {
    expect(logLevels('info')).toEqual(['fatal', 'error', 'warn', 'log']);
    expect(logLevels('warn')).toEqual(['fatal', 'error', 'warn']);
    expect(logLevels('debug')).toEqual(['fatal', 'error', 'warn', 'log', 'debug']);
    expect(logLevels('nonsense')).toEqual(['fatal', 'error', 'warn', 'log']);
  });

  it('writes one JSON object a line, fields at the top level, credentials masked', () => {
    const lines: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const logger = createLogger({ logFormat: 'json', logLevel: 'info' });
      logger.log('GET /v2/widgets 200', { request_id: 'r-1', status: 200, headers: { authorization: 'Bearer mt_x' }, secret_key: 'sk_y' }, 'Http');
      logger.debug('hidden at info level', 'Http');
    } finally {
      write.mockRestore();
    }
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({ level: 'log', context: 'Http', message: 'GET /v2/widgets 200', request_id: 'r-1', status: 200 });
    expect(lines[0]).not.toContain('mt_x');
    expect(lines[0]).not.toContain('sk_y');
  });
});
