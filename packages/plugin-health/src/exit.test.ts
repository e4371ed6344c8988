import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Runs a fixture with node; kills it (and reports so) if it has not exited by itself within `boundMs`. */
function run(
  fixture: string,
  boundMs: number,
): Promise<{ code: number | null; killed: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url))],
      {
        cwd: packageDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    let killed = false;
    const bound = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, boundMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(bound);
      resolve({ code, killed, stdout, stderr });
    });
  });
}

it.each([
  ['on a plain node:http server with a bare plugin context', 'exit-after-close.mjs'],
  ['in a real Pier server over streamable HTTP', 'exit-after-close-pier.mjs'],
])(
  'a process using the plugin exits by itself after close(), with checks hanging (%s)',
  { timeout: 20_000 },
  async (_title, fixture) => {
    expect(
      existsSync(new URL('../dist/index.js', import.meta.url)),
      'build the package first (tsc -p tsconfig.build.json)',
    ).toBe(true);
    const result = await run(fixture, 15_000);
    expect(result.stderr).toBe('');
    expect(result.killed).toBe(false);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^503 \{"status":"unhealthy","reason":"shutting_down",/);
  },
);
