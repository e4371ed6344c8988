import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CANARY } from './test-seed-spec.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/seed-server.mjs', import.meta.url));

/** Runs the fixture with exactly these arguments and variables (nothing inherited from this process). */
function run(argv: string[], env: Record<string, string>) {
  const child = spawnSync(process.execPath, [fixture, ...argv], { env, encoding: 'utf8', timeout: 20_000 });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

// turbo builds before testing; a bare `vitest run` after editing src rebuilds here instead of testing stale code.
beforeAll(() => {
  const built = statSync(new URL('../dist/index.js', import.meta.url), { throwIfNoEntry: false });
  const sources = readdirSync(new URL('.', import.meta.url)).filter((name) => /^[^.]+\.ts$/.test(name));
  const newest = Math.max(...sources.map((name) => statSync(new URL(name, import.meta.url)).mtimeMs));
  if (built !== undefined && built.mtimeMs >= newest) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: packageDir, stdio: 'inherit' });
}, 120_000);

describe('a program using loadConfig, in a child process', () => {
  it('exits 1 with one stderr line when the API key is missing, and leaves stdout empty', () => {
    expect(run([], { API_KEY: '' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'apiKey (API_KEY or --api-key): required\n',
    });
  });

  it('exits 1 with a line per failed validation, naming each source', () => {
    const result = run(['--timeout', '0', '--max-retries', 'x'], { API_KEY: CANARY, LOG_LEVEL: 'verbose' });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'maxRetries (--max-retries): expected an integer, got "x"',
        'timeout (--timeout): Too small: expected number to be >0',
        'logLevel (LOG_LEVEL): expected one of debug, info, warn, error, got "verbose"',
        '',
      ].join('\n'),
    });
    expect(result.stderr).not.toContain(CANARY);
  });

  it('starts with a masked configuration and keeps stdout empty', () => {
    const result = run(['--debug'], { API_KEY: CANARY, DATABASE_URL: `postgres://app:${CANARY}@db/app` });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain(CANARY);
    const [config, report] = result.stderr.trim().split('\n');
    expect(JSON.parse(config?.replace(/^config /, '') ?? '')).toMatchObject({
      apiKey: 'CANA********',
      debug: true,
    });
    expect(JSON.parse(report?.replace(/^report /, '') ?? '')).toMatchObject({
      apiKey: { value: 'CANA********', source: 'API_KEY' },
      debug: { value: true, source: '--debug' },
    });
  });

  it('prints help and the version on stdout and exits 0', () => {
    const help = run(['--help'], {});
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: weather \[options\]\n/);
    expect(run(['--version'], {})).toEqual({ code: 0, stdout: '1.0.0\n', stderr: '' });
  });
});
