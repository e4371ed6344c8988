import { describe, expectTypeOf, it } from 'vitest';
import {
  type Config,
  type ConfigIssue,
  type ConfigReport,
  configReport,
  type LoadConfigOptions,
  loadConfig,
  parseArgs,
  parseConfig,
  z,
} from './index.js';
import { seedSpec } from './test-seed-spec.js';

describe('inferred configuration types', () => {
  it('gives each key its schema output type', () => {
    const config = loadConfig({ port: { schema: z.number().int().default(3000), env: 'PORT' } });
    expectTypeOf(config.port).toEqualTypeOf<number>();
  });

  it('types the seed example', () => {
    const config = loadConfig(seedSpec);
    expectTypeOf(config).toEqualTypeOf<Config<typeof seedSpec>>();
    expectTypeOf(config.apiKey).toEqualTypeOf<string>();
    expectTypeOf(config.baseUrl).toEqualTypeOf<string>();
    expectTypeOf(config.debug).toEqualTypeOf<boolean>();
    expectTypeOf(config.maxRetries).toEqualTypeOf<number>();
    expectTypeOf(config.databaseUrl).toEqualTypeOf<string | undefined>();
    expectTypeOf(config.logLevel).toEqualTypeOf<'debug' | 'info' | 'warn' | 'error'>();
  });

  it('makes the configuration read-only', () => {
    const config = loadConfig({ port: { schema: z.number() } });
    // @ts-expect-error the configuration is frozen, and typed so
    config.port = 1;
  });

  it('uses the output of transforms and codecs', () => {
    const config = loadConfig({
      hosts: { schema: z.string().transform((text) => text.split(',')) },
      verbose: { schema: z.stringbool().optional() },
    });
    expectTypeOf(config.hosts).toEqualTypeOf<string[]>();
    expectTypeOf(config.verbose).toEqualTypeOf<boolean | undefined>();
  });

  it('accepts a spec kept in a variable without `as const`', () => {
    const spec = { token: { schema: z.string(), env: 'TOKEN', arg: false, secret: true } };
    expectTypeOf(loadConfig(spec).token).toEqualTypeOf<string>();
  });

  it('rejects a spec whose schema is not a zod schema', () => {
    // @ts-expect-error schema must be a zod schema
    loadConfig({ port: { schema: 3000 } });
  });
});

describe('parseConfig results', () => {
  it('narrow on ok', () => {
    const result = parseConfig({ port: { schema: z.number().int() } }, { argv: [], env: {} });
    if (result.ok) {
      expectTypeOf(result.config.port).toEqualTypeOf<number>();
      expectTypeOf(result.positionals).toEqualTypeOf<readonly string[]>();
    } else {
      expectTypeOf(result.issues).toEqualTypeOf<readonly ConfigIssue[]>();
      expectTypeOf(result.issues[0]?.code).toEqualTypeOf<ConfigIssue['code'] | undefined>();
    }
  });
});

describe('helpers', () => {
  it('type parseArgs, configReport and the options', () => {
    expectTypeOf(parseArgs(['--a']).options.a).toEqualTypeOf<string | boolean | undefined>();
    expectTypeOf(configReport).returns.toEqualTypeOf<ConfigReport>();
    expectTypeOf<LoadConfigOptions['unknown']>().toEqualTypeOf<'error' | 'warn' | 'ignore' | undefined>();
  });
});
