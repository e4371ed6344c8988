import { describe, expect, it } from 'vitest';
import { configReport, parseConfig } from './index.js';
import { formatIssue } from './issues.js';
import { CANARY, seedSpec } from './test-seed-spec.js';

// The seed's example configuration, end to end, as an MCP client would launch the server.
function parse(argv: string[], env: Record<string, string>) {
  const result = parseConfig(seedSpec, { argv, env });
  return result.ok
    ? { config: result.config, errors: [] }
    : { config: undefined, errors: result.issues.map(formatIssue) };
}

describe('the seed example configuration', () => {
  it('takes every default when only the API key is set', () => {
    expect(parse([], { API_KEY: CANARY }).config).toEqual({
      apiKey: CANARY,
      baseUrl: 'https://api.example.com',
      debug: false,
      maxRetries: 3,
      timeout: 5000,
      databaseUrl: undefined,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const env = {
      API_KEY: CANARY,
      BASE_URL: 'http://localhost:8080/v2',
      DEBUG: 'true',
      MAX_RETRIES: '0',
      TIMEOUT: '250',
      DATABASE_URL: 'postgres://app:pw@db.example/app',
      LOG_LEVEL: 'debug',
    };
    expect(parse([], env).config).toEqual({
      apiKey: CANARY,
      baseUrl: 'http://localhost:8080/v2',
      debug: true,
      maxRetries: 0,
      timeout: 250,
      databaseUrl: 'postgres://app:pw@db.example/app',
      logLevel: 'debug',
    });
  });

  it('lets flags override variables', () => {
    const argv = [
      '--api-key',
      'from-argv',
      '--base-url=https://eu.example.com',
      '--no-debug',
      '--max-retries',
      '9',
    ];
    const env = { API_KEY: CANARY, DEBUG: 'true', MAX_RETRIES: '1', TIMEOUT: '7000' };
    const { config } = parse(argv, env);
    expect(config).toMatchObject({ apiKey: 'from-argv', baseUrl: 'https://eu.example.com', debug: false });
    expect(config && configReport(config)).toMatchObject({
      apiKey: { source: '--api-key' },
      maxRetries: { value: 9, source: '--max-retries' },
      timeout: { value: 7000, source: 'TIMEOUT' },
    });
  });

  it('treats an empty API_KEY as missing and an empty DATABASE_URL as unset', () => {
    expect(parse([], { API_KEY: '', DATABASE_URL: '' }).errors).toEqual([
      'apiKey (API_KEY or --api-key): required',
    ]);
    expect(parse([], { API_KEY: CANARY, DATABASE_URL: '' }).config?.databaseUrl).toBeUndefined();
  });

  it('gives DATABASE_URL and LOG_LEVEL no flag', () => {
    expect(parse(['--log-level', 'debug', '--database-url', CANARY], { API_KEY: CANARY }).errors).toEqual([
      '--log-level (argv[0]): unknown option; logLevel is read from the variable LOG_LEVEL only',
      '--database-url (argv[2]): unknown option; databaseUrl is read from the variable DATABASE_URL only',
    ]);
  });

  it('reports each bad value, naming its source, all at once', () => {
    const env = {
      BASE_URL: 'ftp://x.example',
      DEBUG: 'yes',
      MAX_RETRIES: '-1',
      TIMEOUT: '5s',
      LOG_LEVEL: 'trace',
    };
    expect(parse([], env).errors).toEqual([
      'apiKey (API_KEY or --api-key): required',
      'baseUrl (BASE_URL): expected an absolute URL such as https://example.com (protocol http or https), got "ftp://x.example"',
      'maxRetries (MAX_RETRIES): Too small: expected number to be >=0',
      'timeout (TIMEOUT): expected an integer, got "5s"',
      'logLevel (LOG_LEVEL): expected one of debug, info, warn, error, got "trace"',
    ]);
  });
});
