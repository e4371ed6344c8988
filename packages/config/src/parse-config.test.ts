import { describe, expect, it } from 'vitest';
import {
  type ConfigIssue,
  type ConfigSpec,
  configReport,
  type ParseConfigResult,
  parseConfig,
  z,
} from './index.js';
import { formatIssue } from './issues.js';

const spec = {
  port: { schema: z.number().int().default(3000), env: 'PORT' },
  host: { schema: z.string().default('127.0.0.1'), env: 'HOST' },
  offset: { schema: z.number().int().optional() },
  debug: { schema: z.boolean().default(false), env: 'DEBUG' },
  name: { schema: z.string().optional(), env: 'NAME' },
} satisfies ConfigSpec;

function config(argv: string[], env: Record<string, string> = {}) {
  const result = parseConfig(spec, { argv, env });
  if (!result.ok) throw new Error(`expected success, got:\n${result.issues.map(formatIssue).join('\n')}`);
  return result.config;
}

function lines(result: ParseConfigResult<ConfigSpec>): string[] {
  return result.ok ? [] : result.issues.map(formatIssue);
}

describe('parseConfig: command line', () => {
  it('reads --name value and --name=value', () => {
    expect(config(['--port', '8080', '--host=::1'])).toMatchObject({ port: 8080, host: '::1' });
  });

  it('reads a bare boolean flag as true, at the end or before another -- token', () => {
    expect(config(['--debug']).debug).toBe(true);
    expect(config(['--debug', '--port', '1'])).toMatchObject({ debug: true, port: 1 });
  });

  it('reads --no-name as false, over a true variable', () => {
    expect(config(['--no-debug'], { DEBUG: 'true' }).debug).toBe(false);
  });

  it('takes a following true or false as the value of a boolean flag', () => {
    expect(config(['--debug', 'false'], { DEBUG: 'true' }).debug).toBe(false);
    expect(config(['--debug', 'true']).debug).toBe(true);
  });

  it('leaves any other token after a boolean flag as a positional, reported without its text', () => {
    const result = parseConfig(spec, { argv: ['--debug', 'yes'], env: {} });
    expect(lines(result)).toEqual([
      'argv (argv[1]): unexpected argument after --debug, which takes only true or false as its value',
    ]);
  });

  it('takes a value starting with a single dash', () => {
    expect(config(['--offset', '-5']).offset).toBe(-5);
  });

  it('ends options at --', () => {
    const result = parseConfig(spec, {
      argv: ['--port', '1', '--', '--port', '2'],
      env: {},
      unknown: 'ignore',
    });
    expect(result.ok && result.config.port).toBe(1);
    expect(result.ok && result.positionals).toEqual(['--port', '2']);
  });

  it('reports a valued option written bare', () => {
    expect(lines(parseConfig(spec, { argv: ['--port'], env: {} }))).toEqual([
      'port (--port): missing value; write --port <value> or --port=<value>',
    ]);
  });

  it('rejects command-line boolean text other than true and false', () => {
    expect(lines(parseConfig(spec, { argv: ['--debug=1'], env: {} }))).toEqual([
      'debug (--debug): expected true or false, got "1"',
    ]);
    expect(lines(parseConfig(spec, { argv: ['--no-debug=true'], env: {} }))).toEqual([
      'debug (--no-debug): --no-debug takes no value; write --no-debug, or --debug=false',
    ]);
  });

  it('lets the last occurrence of a flag win', () => {
    expect(config(['--port', '1', '--port', '2']).port).toBe(2);
  });
});

describe('parseConfig: precedence and empty values', () => {
  it('uses default < environment < command line, key by key', () => {
    const result = config(['--host', 'argv.example'], { PORT: '8080', HOST: 'env.example' });
    expect(result).toMatchObject({ port: 8080, host: 'argv.example', debug: false });
    expect(configReport(result)).toMatchObject({
      port: { source: 'PORT' },
      host: { source: '--host' },
      debug: { source: 'default' },
      name: { source: 'unset', present: false },
    });
  });

  it('treats an empty variable as unset', () => {
    expect(config([], { PORT: '', NAME: '' })).toMatchObject({ port: 3000, name: undefined });
  });

  it('treats an empty command-line value as not given, so the variable still applies', () => {
    expect(config(['--port='], { PORT: '81' }).port).toBe(81);
    expect(config(['--name', ''], {}).name).toBeUndefined();
  });

  it('does not look at a variable that the command line overrides', () => {
    expect(config(['--port', '1'], { PORT: 'not a number' }).port).toBe(1);
  });

  it('ignores variables the spec does not name', () => {
    expect(config([], { OTHER: 'x', port: '9' }).port).toBe(3000);
  });
});

describe('parseConfig: results', () => {
  it('reports every problem at once, argv problems first', () => {
    const result = parseConfig(spec, {
      argv: ['--prot', '1', '--offset', 'x'],
      env: { PORT: 'abc', DEBUG: 'yes' },
    });
    expect(lines(result)).toEqual([
      '--prot (argv[0]): unknown option; did you mean --port?',
      'port (PORT): expected an integer, got "abc"',
      'offset (--offset): expected an integer, got "x"',
    ]);
    expect(result.warnings.map(formatIssue)).toEqual([
      'debug (DEBUG): warning: "yes" is read as false; only the exact text true turns it on',
    ]);
  });

  it('gives typed issues with a stable code', () => {
    const result = parseConfig(spec, { argv: ['--port', 'x'], env: {} });
    expect(result.ok).toBe(false);
    const issue: ConfigIssue | undefined = result.ok ? undefined : result.issues[0];
    expect(issue).toEqual({
      code: 'invalid_integer',
      severity: 'error',
      path: 'port',
      source: '--port',
      message: 'expected an integer, got "x"',
    });
  });

  it('returns a frozen configuration, nested values included', () => {
    const nested = parseConfig(
      { tags: { schema: z.string().transform((text) => ({ list: text.split(',') })), env: 'TAGS' } },
      { argv: [], env: { TAGS: 'a,b' } },
    );
    if (!nested.ok) throw new Error('expected success');
    expect(Object.isFrozen(nested.config)).toBe(true);
    expect(Object.isFrozen(nested.config.tags)).toBe(true);
    expect(Object.isFrozen(nested.config.tags.list)).toBe(true);
    expect(() => {
      (nested.config as { tags: unknown }).tags = 1;
    }).toThrow(TypeError);
  });

  it('reports zod issues inside a value with their path', () => {
    const result = parseConfig(
      {
        hosts: {
          schema: z
            .string()
            .transform((text) => text.split(','))
            .pipe(z.array(z.string().min(2))),
        },
      },
      { argv: ['--hosts', 'ab,c'], env: {} },
    );
    expect(lines(result)).toEqual(['hosts.1 (--hosts): Too small: expected string to have >=2 characters']);
  });

  it('notes --help and --version without failing on them', () => {
    const result = parseConfig(spec, { argv: ['--help', '--version'], env: {}, version: '1.0.0' });
    expect(result).toMatchObject({ ok: true, helpRequested: true, versionRequested: true });
    const noVersion = parseConfig(spec, { argv: ['--version'], env: {} });
    expect(lines(noVersion)).toEqual(['--version (argv[0]): unknown option; see --help for the options']);
  });
});

describe('a secret pasted into a non-secret option', () => {
  const secretSpec = {
    databaseUrl: { schema: z.string().optional(), env: 'DATABASE_URL', secret: true },
    mode: { schema: z.enum(['fast', 'safe']).default('fast') },
    label: { schema: z.string().max(3).optional() },
  } satisfies ConfigSpec;
  const url = 'postgres://pier:hunter2-but-longer@db.internal:5432/notes_production';

  it('is not quoted in the issue, whole or cut short', () => {
    for (const argv of [['--mode', url], [`--label=${url}`], ['--mode', 'x"y\\z-secret-value']]) {
      const secret = argv.length === 2 && argv[1]?.startsWith('x') ? (argv[1] as string) : url;
      const result = parseConfig(secretSpec, { argv, env: { DATABASE_URL: secret } });
      expect(result.ok).toBe(false);
      const text = JSON.stringify(result);
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('postgres://pier:');
      expect(text).not.toContain('secret-value');
    }
  });

  it('still quotes ordinary values', () => {
    const result = parseConfig(secretSpec, { argv: ['--mode', 'turbo'], env: { DATABASE_URL: url } });
    expect(result.ok || result.issues[0]?.message).toMatch(/got "turbo"/);
  });
});
