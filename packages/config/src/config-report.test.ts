import { describe, expect, it } from 'vitest';
import { type ConfigError, configReport, parseConfig } from './index.js';
import { CANARY, seedSpec } from './test-seed-spec.js';

const result = parseConfig(seedSpec, {
  argv: ['--api-key', CANARY, '--no-debug'],
  env: { MAX_RETRIES: '5' },
});
if (!result.ok) throw new Error('the seed spec must parse');

describe('configReport', () => {
  it('gives each value with its source, and masks secrets', () => {
    expect(configReport(result.config)).toEqual({
      apiKey: { value: 'CANA********', present: true, secret: true, source: '--api-key' },
      baseUrl: { value: 'https://api.example.com', present: true, secret: false, source: 'default' },
      debug: { value: false, present: true, secret: false, source: '--no-debug' },
      maxRetries: { value: 5, present: true, secret: false, source: 'MAX_RETRIES' },
      timeout: { value: 5000, present: true, secret: false, source: 'default' },
      databaseUrl: { present: false, secret: true, source: 'unset' },
      logLevel: { value: 'info', present: true, secret: false, source: 'default' },
    });
  });

  it('can reduce secrets to a presence flag', () => {
    const report = configReport(result.config, { secrets: 'presence' });
    expect(report.apiKey).toEqual({ present: true, secret: true, source: '--api-key' });
    expect(report.maxRetries).toEqual({ value: 5, present: true, secret: false, source: 'MAX_RETRIES' });
    expect(JSON.stringify(report)).not.toContain('CANA');
  });

  it('is a plain object that never holds a secret', () => {
    const report = configReport(result.config);
    expect(Object.getPrototypeOf(report)).toBe(Object.prototype);
    expect(JSON.stringify(report)).not.toContain(CANARY);
  });

  it('refuses objects that loadConfig or parseConfig did not return', () => {
    expect(() => configReport({ ...result.config })).toThrow(
      expect.objectContaining({ code: 'CONFIG_NOT_LOADED' }) as unknown as ConfigError,
    );
  });
});
