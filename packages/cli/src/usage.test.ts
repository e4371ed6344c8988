// A wrong command line, as a user types it: every problem in it is named at once (not one per try), on
// stderr, with exit code 2, and nothing runs — no server is contacted, no file written, no secret echoed.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPier } from './test-helpers.js';

const SECRET = 'sk-live-9f8e7d6c5b4a39281706';

describe('usage errors name every problem at once', () => {
  it.concurrent('call: flags, arguments and the server, before connecting to anything', async () => {
    // A port nothing listens on: had pier tried to connect, it would exit 1 saying so.
    const ran = await runPier([
      'call',
      '--jsno',
      '--era',
      '2027',
      '--args',
      '[1]',
      '--answer',
      'maybe',
      '--header',
      `Bearer ${SECRET}`,
      '=x',
      'http://127.0.0.1:9/mcp',
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(
      [
        'pier: call: 7 problems:',
        '  - unknown option --jsno (did you mean --json?)',
        '  - which tool? pier call <tool> [key=value…] <url | -- command>',
        '  - "=x" is neither key=value nor a URL; arguments are key=value',
        '  - --era must be 2026, 2025 or auto (got "2027")',
        '  - --args must be a JSON object, such as {"city":"Oslo"}',
        `  - --answer must be a JSON object, decline or cancel: ${/Unexpected token.*/.exec(ran.stderr)?.[0] ?? ''}`,
        '  - --header takes NAME=VALUE or "Name: value" (got no name before "=" or ":")',
        'see pier call --help',
        '',
      ].join('\n'),
    );
    expect(ran.stderr).not.toContain(SECRET);
  });

  it.concurrent('install: nothing is written, and a value given without its name is never echoed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'pier-usage-'));
    const ran = await runPier(
      ['install', 'cursr', 'extra', 'words', '--env', SECRET, '--name', 'a/b', '--dry-run=yes', '--scope'],
      { env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, cwd: home },
    );
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      [
        'pier: install: 7 problems:',
        '  - --dry-run takes no value (got --dry-run=…)',
        '  - --scope needs a value',
        '  - unknown client "cursr" (did you mean cursor?); clients: claude-desktop, claude-code, cursor, vscode',
        '  - unexpected words; a command for the server goes after --',
        '  - --env takes KEY=VALUE or KEY (got neither: no "=" and not a variable name)',
        '  - "extra" is not an http(s) URL',
        '  - --name may hold letters, digits, spaces and . _ - @ (got "a/b")',
        '',
      ].join('\n'),
    );
    expect(ran.stderr).not.toContain(SECRET);
    expect(existsSync(join(home, '.cursor'))).toBe(false);
  });

  it.concurrent('dev, doctor and inspect: the same shape; one problem stays one line', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'pier-usage-'));
    const [dev, doctor, inspect, one, help, typo] = await Promise.all([
      runPier(['dev', 'a.ts', 'b.ts', '--grace', 'soon', '--inspectr'], { cwd: empty }),
      runPier(['doctor', 'example.com', '--timeout', '0', '--open', '--origin', 'https://claude.ai/x']),
      runPier(['inspect', '--era', '--json', 'http://127.0.0.1:9/mcp', '--', 'node', 'x.js']),
      runPier(['doctor', '--lgoin', 'http://127.0.0.1:9/mcp']),
      // --help wins over everything else wrong: the user asked how to use it.
      runPier(['call', '--jsno', '--help']),
      // A misspelt flag that takes a value: its value is not also called a stray word.
      runPier(['inspect', '--hedaer', 'A=b', 'http://127.0.0.1:9/mcp', '--era', 'x']),
    ]);
    expect([dev.code, doctor.code, inspect.code, one.code, help.code, typo.code]).toEqual([2, 2, 2, 2, 0, 2]);
    expect(dev.stderr).toBe(
      [
        'pier: dev: 4 problems:',
        '  - unknown option --inspectr (did you mean --inspector?)',
        '  - one entry file (got a.ts, b.ts); arguments for the server go after --',
        `  - the entry a.ts does not exist (in ${empty})`,
        '  - --grace must be a whole number of milliseconds, 1 to 2147483647 (got "soon")',
        'see pier dev --help',
        '',
      ].join('\n'),
    );
    expect(doctor.stderr).toBe(
      [
        'pier: doctor: 4 problems:',
        '  - "example.com" is not an http(s) URL',
        '  - --origin is a scheme and host, such as https://claude.ai (got "https://claude.ai/x")',
        '  - --open opens the sign-in page of --login: give --login too',
        '  - --timeout must be a whole number of milliseconds, 1 to 2147483647 (got "0")',
        '',
      ].join('\n'),
    );
    expect(inspect.stderr).toBe(
      [
        'pier: inspect: 2 problems:',
        '  - --era needs a value',
        '  - give a URL or a command after --, not both (got "http://127.0.0.1:9/mcp" and a command)',
        '',
      ].join('\n'),
    );
    expect(one.stderr).toBe(
      'pier: doctor: unknown option --lgoin (did you mean --login?); see pier doctor --help\n',
    );
    expect(typo.stderr).toBe(
      [
        'pier: inspect: 2 problems:',
        '  - unknown option --hedaer (did you mean --header?)',
        '  - --era must be 2026, 2025 or auto (got "x")',
        'see pier inspect --help',
        '',
      ].join('\n'),
    );
    expect(help.stdout).toMatch(/^Usage: pier call <tool>/);
    expect(help.stderr).toBe('');
  });
});
