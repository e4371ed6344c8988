import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture(options: Parameters<typeof createLogger>[0] = {}) {
  const lines: string[] = [];
  const logger = createLogger({
    env: {},
    ...options,
    stream: { write: (chunk: string) => lines.push(chunk) },
  });
  return { logger, lines };
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;

describe('createLogger', () => {
  it('writes one line per event: time, level, scope, message, fields', () => {
    const { logger, lines } = capture({ scope: 'weather' });
    logger.info('listening', { transport: 'stdio', port: 3000, tls: false, missing: undefined });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(TIMESTAMP);
    expect(lines[0]?.replace(TIMESTAMP, '')).toBe(
      'INFO  [weather] listening transport=stdio port=3000 tls=false\n',
    );
  });

  it('keeps an event on one line and quotes values that need it', () => {
    const { logger, lines } = capture();
    logger.warn('first\nsecond', { error: new Error('a "b"\nc'), path: '/a b', list: [1, 2] });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.replace(TIMESTAMP, '')).toBe(
      'WARN  first\\nsecond error="a \\"b\\"\\nc" path="/a b" list=[1,2]\n',
    );
  });

  it('drops lines below the level', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(lines.map((line) => line.replace(TIMESTAMP, ''))).toEqual(['WARN  w\n', 'ERROR e\n']);
  });

  it('defaults to info, or to PIER_LOG_LEVEL', () => {
    const byDefault = capture();
    byDefault.logger.debug('hidden');
    byDefault.logger.info('shown');
    expect(byDefault.lines).toHaveLength(1);
    const fromEnv = capture({ env: { PIER_LOG_LEVEL: 'DEBUG' } });
    fromEnv.logger.debug('shown');
    expect(fromEnv.lines).toHaveLength(1);
  });

  it('warns about a PIER_LOG_LEVEL it does not know, and uses info', () => {
    const { logger, lines } = capture({ env: { PIER_LOG_LEVEL: 'verbose' } });
    logger.debug('hidden');
    expect(lines.map((line) => line.replace(TIMESTAMP, ''))).toEqual([
      'WARN  PIER_LOG_LEVEL is not one of debug, info, warn, error; using info value=verbose\n',
    ]);
  });

  it('scopes children under their parent', () => {
    const { logger, lines } = capture({ scope: 'weather' });
    logger.child('health').child('db').error('down');
    expect(lines[0]?.replace(TIMESTAMP, '')).toBe('ERROR [weather/health/db] down\n');
  });

  it('survives a stream that throws', () => {
    const logger = createLogger({
      env: {},
      stream: {
        write: () => {
          throw new Error('EPIPE');
        },
      },
    });
    expect(() => logger.error('still here')).not.toThrow();
  });

  it('rejects an unknown level', () => {
    expect(() => createLogger({ level: 'loud' as never })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID' }),
    );
  });
});
