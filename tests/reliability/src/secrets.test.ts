// Secrets: the example app runs with a canary API key and a canary DATABASE_URL through every path that
// prints — debug startup logs, --help, every configuration error, show_config, failing tools, health
// bodies, shutdown logs — and the configuration is inspected and serialised in-process. The canary's text
// never appears anywhere; its masked form (a 4-character prefix and asterisks) may.
import { inspect } from 'node:util';
import { configReport, parseConfig } from '@pier/config';
import { configSpec } from '@pier/example-server/dist/config.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, EXAMPLE_MAIN, exitWithin, spawnNode, startExampleHttp, tempDir } from './child.js';
import { connectClient } from './mcp.js';

afterEach(cleanUp);

const API_KEY = 'sk-CANARY-apikey-7f3a9c1d2e4b5a6f';
const DB_PASSWORD = 'CANARYdbpass91b2c3d4';
const DATABASE_URL = `postgres://pier:${DB_PASSWORD}@db.internal:5432/notes`;

/** Everything of the canaries that must never be printed: the values and their unmasked parts. */
const LEAKS = [
  API_KEY,
  API_KEY.slice(4),
  'apikey-7f3a9c1d',
  DATABASE_URL,
  DATABASE_URL.slice(4),
  DB_PASSWORD,
  'db.internal',
];

function expectNoCanary(text: string, where: string): void {
  for (const leak of LEAKS) {
    expect(text.includes(leak), `${where} holds "${leak}":\n${text.slice(0, 2000)}`).toBe(false);
    expect(text.includes(encodeURIComponent(leak)), `${where} holds "${leak}" URL-encoded`).toBe(false);
  }
}

const SECRET_ENV = { API_KEY, DATABASE_URL };

async function runToExit(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  const child = spawnNode([EXAMPLE_MAIN, ...args], env);
  const exit = await exitWithin(child, 15_000);
  return { code: exit.code, out: `${child.stdout()}\n${child.stderr()}` };
}

/** Bad values for every option, from the command line and from the environment, beside the canaries. */
const BAD_CONFIGS: readonly { name: string; args: string[]; env?: NodeJS.ProcessEnv; runtime?: true }[] = [
  { name: 'no API key, DATABASE_URL set', args: [], env: { API_KEY: undefined } },
  { name: 'empty API key flag', args: ['--api-key='], env: { API_KEY: undefined } },
  {
    name: 'API key in a flag with a space (one argv entry)',
    args: [`--api-key ${API_KEY}`],
    env: { API_KEY: undefined },
  },
  { name: 'misspelt API key flag', args: ['--api-kee', API_KEY], env: { API_KEY: undefined } },
  { name: 'API key as a positional', args: [API_KEY] },
  { name: 'database URL as a flag (arg: false)', args: ['--database-url', DATABASE_URL] },
  { name: 'database URL as --database-url=', args: [`--database-url=${DATABASE_URL}`] },
  { name: 'API key given to --port', args: ['--port', API_KEY] },
  { name: 'API key given to --max-retries', args: [`--max-retries=${API_KEY}`] },
  { name: 'API key given to --base-url', args: ['--base-url', API_KEY] },
  { name: 'database URL given to --transport', args: ['--transport', DATABASE_URL] },
  { name: 'bad port', args: ['--port', '70000'] },
  { name: 'bad port from PORT', args: [], env: { PORT: '80x' } },
  { name: 'bad max retries', args: ['--max-retries', '-1'] },
  { name: 'bad timeout', args: ['--timeout', '4.5'] },
  { name: 'bad base URL', args: ['--base-url', 'ftp://example.com'] },
  { name: 'bad transport', args: ['--transport', 'pigeon'] },
  // Valid configuration that fails when used: the app's own "cannot start" / "cannot open" lines.
  { name: 'host that cannot be bound', args: ['--host', '203.0.113.1', '--port', '0'], runtime: true },
  {
    name: 'data dir that cannot be created',
    args: ['--data-dir', '/dev/null/notes', '--port', '0'],
    runtime: true,
  },
  { name: 'bad drain delay', args: ['--drain-delay-ms', '-5'] },
  { name: 'bad LOG_LEVEL', args: [], env: { LOG_LEVEL: 'loud' } },
  { name: 'DEBUG=yes (a warning)', args: ['--transport', 'pigeon'], env: { DEBUG: 'yes' } },
  { name: 'API key pasted into MAX_RETRIES', args: [], env: { MAX_RETRIES: API_KEY } },
  { name: 'database URL pasted into BASE_URL', args: [], env: { BASE_URL: DATABASE_URL } },
  { name: 'debug flag with a value', args: ['--debug', API_KEY, '--port', 'x'] },
];

describe('secrets never printed', () => {
  it('--help and --version print no secret', async () => {
    for (const args of [['--help'], ['--api-key', API_KEY, '--help'], ['--version']]) {
      const { code, out } = await runToExit(args, SECRET_ENV);
      expect(code).toBe(0);
      expectNoCanary(out, `${args.join(' ')}`);
    }
  });

  it('every configuration error exits 1 without the canaries', async () => {
    for (let i = 0; i < BAD_CONFIGS.length; i += 4) {
      const batch = BAD_CONFIGS.slice(i, i + 4);
      const results = await Promise.all(
        batch.map((bad) =>
          runToExit(['--transport', 'streamable-http', ...bad.args], { ...SECRET_ENV, ...bad.env }),
        ),
      );
      results.forEach(({ code, out }, j) => {
        const bad = batch[j] as (typeof BAD_CONFIGS)[number];
        expect(code, `${bad.name}: ${out}`).toBe(1);
        expect(out.trim().length, bad.name).toBeGreaterThan(0);
        expectNoCanary(out, bad.name);
      });
    }
    // One program per bad configuration, four at a time, each bounded by exitWithin: 21–29 s in CI runs on two
    // loaded cores, 30.5 s once, past vitest's default here. A bound against a hang, not a timing.
  }, 120_000);

  it('debug logs, show_config, failing tools, bad arguments, health bodies and shutdown logs hold no secret', async () => {
    const dataDir = await tempDir();
    for (const debug of [['--debug'], []]) {
      const app = await startExampleHttp(dataDir, 0, { ...SECRET_ENV, LOG_LEVEL: 'debug' }, [
        '--base-url',
        'http://127.0.0.1:9/',
        ...debug,
      ]);
      const url = app.url;
      const seen: string[] = [];
      const client = await connectClient(url);
      const show = await client.callTool({ name: 'show_config', arguments: {} });
      seen.push(JSON.stringify(show));
      // The masked form may be shown: it proves show_config reports the key rather than hiding the field.
      expect(JSON.stringify(show)).toContain(API_KEY.slice(0, 4));
      seen.push(JSON.stringify(await client.callTool({ name: 'delete_note', arguments: { id: 'missing' } })));
      for (const args of [{ title: '' }, { title: API_KEY.slice(0, 3) }, { body: 42 }, {}]) {
        seen.push(
          JSON.stringify(
            await client.callTool({ name: 'add_note', arguments: args }).catch((e: unknown) => String(e)),
          ),
        );
      }
      seen.push(
        JSON.stringify(
          await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: unknown) => String(e)),
        ),
      );
      seen.push(
        JSON.stringify(
          await client.readResource({ uri: 'notes://missing' }).catch((e: unknown) => String(e)),
        ),
      );
      await client.close();
      for (const path of ['/health', '/health/ready', '/health/live', '/nowhere']) {
        seen.push(await (await fetch(new URL(path, url))).text());
      }
      app.child.kill('SIGTERM');
      expect((await exitWithin(app, 15_000)).code).toBe(0);
      expectNoCanary(seen.join('\n'), 'HTTP responses');
      expectNoCanary(app.stdout(), 'stdout');
      expectNoCanary(app.stderr(), 'stderr');
      if (debug.length > 0) expect(app.stderr()).toMatch(/DEBUG/);
    }
  });

  it('util.inspect, JSON.stringify, String() and the report of the configuration mask every secret', () => {
    const env = { DATABASE_URL };
    const parsed = parseConfig(configSpec(env), { argv: ['--api-key', API_KEY], env });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const config = parsed.config;
    expect(config.apiKey).toBe(API_KEY);
    const printed = [
      inspect(config),
      inspect(config, { depth: null, showHidden: true, getters: true }),
      inspect({ nested: { config } }, { depth: null }),
      JSON.stringify(config),
      JSON.stringify({ config }),
      String(config),
      `${config}`,
      JSON.stringify(configReport(config)),
      inspect(configReport(config), { depth: null }),
    ];
    for (const text of printed) expectNoCanary(text, text);
    expect(JSON.stringify(config)).toContain(API_KEY.slice(0, 4));
  });

  it('configuration issues in-process never quote a secret', () => {
    for (const bad of BAD_CONFIGS) {
      const env = { ...SECRET_ENV, ...bad.env };
      const parsed = parseConfig(configSpec(env), {
        argv: ['--transport', 'streamable-http', ...bad.args],
        env,
      });
      expectNoCanary(inspect(parsed, { depth: null }), bad.name);
      expectNoCanary(JSON.stringify(parsed), bad.name);
      if (!bad.runtime) expect(parsed.ok, bad.name).toBe(false);
    }
  });
});
