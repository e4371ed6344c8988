import { describe, expect, it } from 'vitest';
import { ConfigError, type LoadConfigOptions, loadConfig } from './index.js';
import { CANARY, seedSpec } from './test-seed-spec.js';

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function run(argv: string[], env: Record<string, string>, extra: LoadConfigOptions = {}) {
  let stdout = '';
  let stderr = '';
  const options: LoadConfigOptions = {
    argv,
    env,
    stdout: { write: (text) => (stdout += text) },
    stderr: { write: (text) => (stderr += text) },
    exit: (code) => {
      throw new Exit(code);
    },
    ...extra,
  };
  try {
    const config = loadConfig(seedSpec, options);
    return { config, code: undefined, stdout, stderr };
  } catch (error) {
    if (error instanceof Exit) return { config: undefined, code: error.code, stdout, stderr };
    throw error;
  }
}

describe('loadConfig', () => {
  it('returns the configuration and prints nothing when all is well', () => {
    const result = run(['--debug'], { API_KEY: CANARY });
    expect(result).toMatchObject({ code: undefined, stdout: '', stderr: '' });
    expect(result.config?.debug).toBe(true);
  });

  it('writes one line per problem to stderr and exits with 1, stdout untouched', () => {
    const result = run(['--max-retries', 'many'], { TIMEOUT: '1e3', LOG_LEVEL: 'loud' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'apiKey (API_KEY or --api-key): required',
        'maxRetries (--max-retries): expected an integer, got "many"',
        'timeout (TIMEOUT): expected an integer, got "1e3"',
        'logLevel (LOG_LEVEL): expected one of debug, info, warn, error, got "loud"',
        '',
      ].join('\n'),
    );
  });

  it('prints warnings to stderr and goes on', () => {
    const result = run([], { API_KEY: CANARY, DEBUG: 'yes' });
    expect(result.code).toBeUndefined();
    expect(result.config?.debug).toBe(false);
    expect(result.stderr).toBe(
      'debug (DEBUG): warning: "yes" is read as false; only the exact text true turns it on\n',
    );
  });

  it('prints help to stdout and exits 0, even when the configuration is incomplete', () => {
    const result = run(['--help'], { DATABASE_URL: CANARY }, { name: 'weather', description: 'Forecasts.' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        'Usage: weather [options]',
        '',
        'Forecasts.',
        '',
        'Options (flag, environment variable, description):',
        '  --api-key <value>        API_KEY       Key for the forecast API (required; secret)',
        '  --base-url <url>         BASE_URL      Base URL of the forecast API (default: https://api.example.com)',
        '  --debug, --no-debug      DEBUG         Log every request (default: false)',
        '  --max-retries <integer>  MAX_RETRIES   Retries (default: 3)',
        '  --timeout <integer>      TIMEOUT       Request timeout in milliseconds (default: 5000)',
        '                           DATABASE_URL  Connection string; may hold a password (optional; secret)',
        '                           LOG_LEVEL     (one of: debug, info, warn, error; default: info)',
        '  --help                                 Print this help and exit',
        '',
        'Flags override environment variables, which override defaults.',
        'A boolean variable is true only when set to the exact text true.',
        '',
      ].join('\n'),
    );
  });

  it('never shows a secret in help, wherever the secret was given', () => {
    const result = run(['--api-key', CANARY, '--help'], { API_KEY: CANARY, DATABASE_URL: CANARY });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(CANARY);
    expect(result.stdout).not.toContain('CANA');
  });

  it('prints the version to stdout and exits 0 when one was given', () => {
    const result = run(['--version'], {}, { version: '1.4.2' });
    expect(result).toMatchObject({ code: 0, stdout: '1.4.2\n', stderr: '' });
    expect(run(['--help'], {}, { version: '1.4.2' }).stdout).toContain('--version');
  });

  it('treats --version as unknown when no version was given', () => {
    const result = run(['--version'], { API_KEY: CANARY });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe('--version (argv[0]): unknown option; see --help for the options\n');
  });

  it('passes the unknown-option policy on', () => {
    const result = run(['--verbose'], { API_KEY: CANARY }, { unknown: 'warn' });
    expect(result.code).toBeUndefined();
    expect(result.stderr).toBe('--verbose (argv[0]): warning: unknown option; see --help for the options\n');
  });

  it('throws CONFIG_INVALID with the issues if exit returns', () => {
    const exit = (() => undefined) as unknown as (code: number) => never;
    const stderr = { write: () => true };
    try {
      loadConfig(seedSpec, { argv: [], env: {}, exit, stderr });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as ConfigError).issues.map((issue) => issue.code)).toEqual(['required']);
      expect((error as ConfigError).message).toBe(
        'invalid configuration\napiKey (API_KEY or --api-key): required',
      );
    }
    const stdout = { write: () => true };
    expect(() => loadConfig(seedSpec, { argv: ['--help'], env: {}, exit, stdout })).toThrow(
      expect.objectContaining({ code: 'CONFIG_EXIT_RETURNED' }) as unknown as Error,
    );
  });
});
