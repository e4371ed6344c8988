import { inspect } from 'node:util';
import { configReport } from '@pier/config';
import { describe, expect, it } from 'vitest';
import { type AppConfig, defaultDataDir, MISSING_API_KEY_HINT, readConfig } from './config.js';
import { DEFAULT_BASE_URL, DEFAULT_DRAIN_DELAY_MS, DEFAULT_PORT } from './settings.js';

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Runs readConfig with captured output; `exit` throws so that the test sees the code. */
function read(argv: string[], env: NodeJS.ProcessEnv = {}) {
  let stderr = '';
  let stdout = '';
  let code: number | undefined;
  let config: AppConfig | undefined;
  try {
    config = readConfig({
      argv,
      env,
      stderr: { write: (text: string) => (stderr += text) },
      stdout: { write: (text: string) => (stdout += text) },
      exit: (exitCode) => {
        throw new Exit(exitCode);
      },
    });
  } catch (error) {
    if (!(error instanceof Exit)) throw error;
    code = error.code;
  }
  return { config, code, stderr, stdout };
}

describe('readConfig', () => {
  it('reads the seed table with its defaults, the key from the environment', () => {
    const { config } = read([], { API_KEY: 'k', HOME: '/home/u' });
    expect(config).toMatchObject({
      apiKey: 'k',
      baseUrl: DEFAULT_BASE_URL,
      debug: false,
      maxRetries: 3,
      timeout: 5000,
      databaseUrl: undefined,
      logLevel: 'info',
      transport: 'stdio',
      port: DEFAULT_PORT,
      drainDelayMs: DEFAULT_DRAIN_DELAY_MS,
    });
  });

  it('lets flags override variables, key by key', () => {
    const { config } = read(
      ['--api-key', 'from-flag', '--max-retries', '5', '--transport', 'streamable-http', '--port', '0'],
      { API_KEY: 'from-env', MAX_RETRIES: '1', TIMEOUT: '250', DEBUG: 'true', LOG_LEVEL: 'warn' },
    );
    expect(config).toMatchObject({
      apiKey: 'from-flag',
      maxRetries: 5,
      timeout: 250,
      debug: true,
      logLevel: 'warn',
      transport: 'streamable-http',
      port: 0,
    });
  });

  it('explains how to set a missing key, after the problem line, and exits with 1', () => {
    const { code, stderr, stdout } = read([], { API_KEY: '' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`apiKey (API_KEY or --api-key): required\n${MISSING_API_KEY_HINT}`);
  });

  it('reports other problems without the hint, and never echoes the key', () => {
    const { code, stderr } = read(['--transport', 'sse', '--port', '80a'], {
      API_KEY: 'sk-secret-value-123456',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('transport (--transport): expected one of stdio, streamable-http, got "sse"');
    expect(stderr).toContain('port (--port): expected an integer, got "80a"');
    expect(stderr).not.toContain(MISSING_API_KEY_HINT);
    expect(stderr).not.toContain('sk-secret-value-123456');
  });

  it('prints help on stdout with exit code 0, listing every variable', () => {
    const { code, stdout } = read(['--help']);
    expect(code).toBe(0);
    for (const name of [
      'API_KEY',
      'BASE_URL',
      'DEBUG',
      'MAX_RETRIES',
      'TIMEOUT',
      'DATABASE_URL',
      'LOG_LEVEL',
    ]) {
      expect(stdout).toContain(name);
    }
    for (const flag of ['--transport', '--port', '--data-dir', '--drain-delay-ms'])
      expect(stdout).toContain(flag);
  });
});

describe('REDIS_URL and REQUEST_STATE_KEY (scale-out mode)', () => {
  const password = 's3cret-redis-pass';
  const url = `redis://app:${password}@redis.internal:6379/0`;

  it('reads them from the environment only, and shows them masked wherever the configuration is printed', () => {
    const key = 'k'.repeat(40);
    const { config } = read([], { API_KEY: 'k', REDIS_URL: url, REQUEST_STATE_KEY: key });
    expect(config?.redisUrl).toBe(url);
    expect(config?.requestStateKey).toBe(key);
    const shown = `${JSON.stringify(config)} ${inspect(config)} ${JSON.stringify(configReport(config as AppConfig))}`;
    expect(shown).not.toContain(password);
    expect(shown).not.toContain(key);
    // No flag: a password on the command line would show in `ps`.
    expect(read(['--redis-url', url], { API_KEY: 'k' }).code).toBe(1);
  });

  it('refuses a URL that is not redis:// or rediss:// without quoting it, and a short key', () => {
    const bad = read([], { API_KEY: 'k', REDIS_URL: `http://app:${password}@redis.internal/` });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('REDIS_URL');
    expect(bad.stderr).not.toContain(password);
    const short = read([], { API_KEY: 'k', REQUEST_STATE_KEY: 'too-short' });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('REQUEST_STATE_KEY');
    expect(short.stderr).not.toContain('too-short');
  });

  it('lists them in --help without any value read from the environment', () => {
    const { code, stdout } = read(['--help'], { REDIS_URL: url });
    expect(code).toBe(0);
    expect(stdout).toContain('REDIS_URL');
    expect(stdout).toContain('REQUEST_STATE_KEY');
    expect(stdout).not.toContain(password);
  });

  it('are unset by default: the embedded single-process mode', () => {
    const { config } = read([], { API_KEY: 'k' });
    expect(config?.redisUrl).toBeUndefined();
    expect(config?.requestStateKey).toBeUndefined();
  });
});

describe('defaultDataDir', () => {
  it('follows XDG_DATA_HOME when it is absolute, else the platform convention', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux')).toBe('/xdg/pier-notes');
    expect(defaultDataDir({ XDG_DATA_HOME: 'relative' }, 'linux')).toMatch(/\/\.local\/share\/pier-notes$/);
    expect(defaultDataDir({}, 'darwin')).toMatch(/\/Library\/Application Support\/pier-notes$/);
    expect(defaultDataDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toContain('pier-notes');
  });
});
