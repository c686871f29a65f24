import { jest } from '@jest/globals';
import { createLogger, logLevels, sandboxLogScope } from './logging.js';

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

  it("leaves out a sandbox generation's framework start-up lines and names the sandbox on its others", async () => {
    const lines: string[] = [];
    const write = (stream: NodeJS.WriteStream) =>
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      });
    const out = write(process.stdout);
    const err = write(process.stderr);
    try {
      const logger = createLogger({ logFormat: 'json', logLevel: 'info' });
      logger.log('AppModule dependencies initialized', 'InstanceLoader');
      await sandboxLogScope.run(true, async () => {
        await Promise.resolve();
        logger.log('AppModule dependencies initialized', 'InstanceLoader');
        logger.log('Nest application successfully started', 'NestApplication');
        logger.error('a projection failed', 'ProjectionRunner');
        logger.warn('a warning from the framework', 'NestApplication');
        logger.log('sandbox generation 2 is live', 'Sandbox');
      });
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(lines.map((line) => JSON.parse(line)).map((e) => [e.level, e.context, e.message])).toEqual([
      ['log', 'InstanceLoader', 'AppModule dependencies initialized'],
      ['error', 'Sandbox/ProjectionRunner', 'a projection failed'],
      ['warn', 'Sandbox/NestApplication', 'a warning from the framework'],
      ['log', 'Sandbox', 'sandbox generation 2 is live'],
    ]);
  });
});
