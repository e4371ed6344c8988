import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigSpec, loadConfig, parseConfig, z } from './index.js';
import { kebabCase, readSpec } from './spec.js';

function specError(spec: ConfigSpec): ConfigError {
  try {
    readSpec(spec);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected the spec to be rejected');
}

describe('spec checks', () => {
  it.each([
    ['default', z.string().default('sk-default')],
    ['prefault', z.string().prefault('sk-default')],
    ['catch', z.string().optional().catch('sk-default')],
    ['preprocess', z.preprocess((value) => value ?? 'sk-default', z.string())],
    ['nested default', z.string().default('sk-default').optional()],
  ])('reject a secret with a %s, in loadConfig and parseConfig alike', (_, schema) => {
    const spec = { apiKey: { schema, env: 'API_KEY', secret: true } };
    const error = specError(spec);
    expect(error.code).toBe('CONFIG_SPEC_INVALID');
    expect(error.message).toContain('apiKey: a secret cannot have a default');
    expect(error.message).not.toContain('sk-default');
    const exit = () => {
      throw new Error('must not exit');
    };
    expect(() => loadConfig(spec, { argv: [], env: { API_KEY: 'x' }, exit })).toThrow(ConfigError);
    expect(() => parseConfig(spec, { argv: [], env: { API_KEY: 'x' } })).toThrow(
      /secret cannot have a default/,
    );
  });

  it('accept an optional secret', () => {
    expect(() =>
      readSpec({ token: { schema: z.string().optional(), env: 'TOKEN', secret: true } }),
    ).not.toThrow();
  });

  it('report every problem in one error', () => {
    const error = specError({
      a: { schema: 'string' as never },
      b: { schema: z.string(), arg: '--b' },
      c: { schema: z.string(), env: 'C', default: 'x' } as never,
      d: { schema: z.string(), env: 'A=B' },
      toJSON: { schema: z.string(), env: 'J' },
    });
    expect(error.message.split('\n')).toEqual([
      'invalid config spec:',
      '  a: schema must be a zod 4 schema, e.g. z.string()',
      '  b: arg must be a flag name such as "api-key" (write it without the dashes), true for the default name, or false for no flag',
      '  c: unknown field "default" (allowed: schema, env, arg, secret, description)',
      '  d: env must be a variable name such as "API_KEY"',
      '  toJSON: the key "toJSON" is reserved (the configuration object defines it)',
    ]);
  });

  it('reject two options with the same flag, including a boolean negation', () => {
    expect(
      specError({ a: { schema: z.string(), arg: 'x' }, b: { schema: z.string(), arg: 'x' } }).message,
    ).toContain('b: the flag --x is also used by a');
    const negation = { cache: { schema: z.boolean() }, noCache: { schema: z.string().optional() } };
    expect(specError(negation).message).toContain('noCache: the flag --no-cache is also used by cache');
  });

  it('reject a required option that has neither a variable nor a flag', () => {
    expect(specError({ a: { schema: z.string(), arg: false } }).message).toContain(
      'a: a required option needs a variable (env) or a flag (arg), or a default',
    );
  });

  it('reject schemas that validate asynchronously', () => {
    const spec = { a: { schema: z.string().refine(async () => true), env: 'A' } };
    expect(() => parseConfig(spec, { argv: [], env: { A: 'x' } })).toThrow(/validate synchronously/);
  });
});

describe('flag names', () => {
  it.each([
    ['maxRetries', 'max-retries'],
    ['apiKey', 'api-key'],
    ['baseURL', 'base-url'],
    ['HTTPPort', 'http-port'],
    ['log_level', 'log-level'],
    ['oauth2Token', 'oauth2-token'],
    ['port', 'port'],
  ])('default %s to --%s', (key, flag) => {
    expect(kebabCase(key)).toBe(flag);
  });

  it('can be chosen, or turned off', () => {
    const spec = {
      apiKey: { schema: z.string().optional(), arg: 'key' },
      named: { schema: z.string().optional(), arg: true },
      hidden: { schema: z.string().optional(), env: 'HIDDEN', arg: false },
    };
    const ok = parseConfig(spec, { argv: ['--key', 'k', '--named', 'n'], env: {} });
    expect(ok.ok && ok.config).toEqual({ apiKey: 'k', named: 'n', hidden: undefined });
    const off = parseConfig(spec, { argv: ['--hidden', 'h'], env: {} });
    expect(off.ok).toBe(false);
  });

  it('let a spec take over --help and --version', () => {
    const spec = { version: { schema: z.string().optional() }, help: { schema: z.boolean().default(false) } };
    const result = parseConfig(spec, { argv: ['--version', '2', '--help'], env: {}, version: '1.0.0' });
    expect(result).toMatchObject({ ok: true, helpRequested: false, versionRequested: false });
    expect(result.ok && result.config).toEqual({ version: '2', help: true });
  });
});

describe('descriptions', () => {
  it('fall back to the schema description', () => {
    const [entry] = readSpec({ port: { schema: z.number().describe('Port to listen on') } });
    expect(entry?.description).toBe('Port to listen on');
  });
});
