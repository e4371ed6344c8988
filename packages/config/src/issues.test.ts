import { describe, expect, it } from 'vitest';
import { type ConfigSpec, parseConfig, z } from './index.js';
import { formatIssue } from './issues.js';
import { CANARY } from './test-seed-spec.js';

function errors(spec: ConfigSpec, argv: string[], env: Record<string, string> = {}): string[] {
  const result = parseConfig(spec, { argv, env });
  return result.ok ? [] : result.issues.map(formatIssue);
}

describe('issue lines', () => {
  it('are written path (source): message, with warning: before a warning', () => {
    const issue = {
      code: 'required',
      path: 'apiKey',
      source: 'API_KEY or --api-key',
      message: 'required',
    } as const;
    expect(formatIssue({ ...issue, severity: 'error' })).toBe('apiKey (API_KEY or --api-key): required');
    expect(formatIssue({ ...issue, severity: 'warning' })).toBe(
      'apiKey (API_KEY or --api-key): warning: required',
    );
  });

  it('name only the sources an option has when it is required', () => {
    const spec = {
      envOnly: { schema: z.string(), env: 'ENV_ONLY', arg: false },
      flagOnly: { schema: z.string() },
    };
    expect(errors(spec, [])).toEqual(['envOnly (ENV_ONLY): required', 'flagOnly (--flag-only): required']);
  });
});

describe('enum messages', () => {
  const level = z.enum(['debug', 'info', 'warn', 'error']);

  it('list the allowed values and the value given', () => {
    expect(errors({ logLevel: { schema: level, env: 'LOG_LEVEL' } }, [], { LOG_LEVEL: 'verbose' })).toEqual([
      'logLevel (LOG_LEVEL): expected one of debug, info, warn, error, got "verbose"',
    ]);
  });

  it('list the allowed values but never the value of a secret', () => {
    const spec = { tier: { schema: level, env: 'TIER', secret: true } };
    expect(errors(spec, [], { TIER: CANARY })).toEqual([
      'tier (TIER): expected one of debug, info, warn, error',
    ]);
  });
});

describe('URL messages', () => {
  it('say what a URL looks like and show the value given', () => {
    for (const schema of [z.url(), z.string().url()]) {
      expect(errors({ baseUrl: { schema, env: 'BASE_URL' } }, [], { BASE_URL: 'not a url' })).toEqual([
        'baseUrl (BASE_URL): expected an absolute URL such as https://example.com, got "not a url"',
      ]);
    }
  });

  it('name the protocols the schema allows', () => {
    const spec = { baseUrl: { schema: z.url({ protocol: /^https?$/ }) } };
    expect(errors(spec, ['--base-url', 'ftp://files.example'])).toEqual([
      'baseUrl (--base-url): expected an absolute URL such as https://example.com (protocol http or https), got "ftp://files.example"',
    ]);
    const odd = { socket: { schema: z.string().url({ protocol: /^unix$/ }) } };
    expect(errors(odd, ['--socket', 'http://x.example'])[0]).toContain('(protocol matching /^unix$/)');
  });

  it('never show the value of a secret URL', () => {
    const spec = {
      databaseUrl: { schema: z.url({ protocol: /^postgres$/ }), env: 'DATABASE_URL', secret: true },
    };
    const url = `mysql://user:${CANARY}@db.example/app`;
    expect(errors(spec, [], { DATABASE_URL: url })).toEqual([
      'databaseUrl (DATABASE_URL): expected an absolute URL such as https://example.com (protocol postgres)',
    ]);
  });
});

describe('secret values in messages', () => {
  it('are kept out of type errors', () => {
    const spec = { pin: { schema: z.number().int(), env: 'PIN', secret: true } };
    expect(errors(spec, [], { PIN: CANARY })).toEqual(['pin (PIN): expected an integer']);
  });

  it('are replaced even when a custom message quotes the input', () => {
    const spec = {
      apiKey: {
        schema: z
          .string()
          .refine((key) => key.startsWith('sk-'), { error: (issue) => `bad key ${issue.input}` }),
        env: 'API_KEY',
        secret: true,
      },
    };
    const [line] = errors(spec, [], { API_KEY: CANARY });
    expect(line).toBe('apiKey (API_KEY): bad key CANA********');
  });
});
