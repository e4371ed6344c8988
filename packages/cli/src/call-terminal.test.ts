// pier call answering a tool's question at a real terminal: the built bin runs in a pseudo-terminal
// (util-linux `script`), the test reads the screen and types as a person would. The example app's
// delete_note asks for a confirmation (elicitation) over HTTP with a 2026-07-28 client and over stdio with
// a 2025 one. Colour is on at a terminal and off with NO_COLOR.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, EXAMPLE_MAIN, type ExampleApp, runPier, startExampleApp } from './test-helpers.js';
import { ensureScript, inTerminal } from './test-terminal.js';

let app: ExampleApp;
const shell = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes (SGR) are what is looked for
const COLOUR = /\u001b\[\d+(;\d+)*m/;

beforeAll(async () => {
  ensureScript();
  app = await startExampleApp({ env: { SESSIONS: 'true' } });
});
afterAll(() => app.close());

async function addNote(
  title: string,
  target: readonly string[],
  env: Record<string, string> = {},
): Promise<string> {
  const ran = await runPier(['call', 'add_note', `title=${title}`, 'body=b', '--json', ...target], { env });
  expect(ran.code, ran.stderr).toBe(0);
  return (JSON.parse(ran.stdout) as { structuredContent: { note: { id: string } } }).structuredContent.note
    .id;
}

it.concurrent('asks on the terminal, in colour, re-asks a bad answer, and sends (HTTP, 2026-07-28)', async () => {
  const id = await addNote('Asked at a terminal', [app.url]);
  const terminal = inTerminal(
    [process.execPath, BIN, 'call', 'delete_note', `id=${id}`, '--era', '2026', app.url],
    shell,
  );
  try {
    const question = await terminal.waitFor(
      /\?.*Delete the note "Asked at a terminal"\? This cannot be undone\./,
    );
    expect(question).toMatch(COLOUR);
    await terminal.waitFor(/Delete this note\*.*\(y\/n\).*: /);
    terminal.type('maybe\r');
    await terminal.waitFor('answer y or n');
    await terminal.waitFor(/Delete this note\*.*\(y\/n\).*: /);
    terminal.type('y\r');
    await terminal.waitFor(/Send\?.*\[Y\]es, \[n\]o \(decline\), \[c\]ancel:/);
    terminal.type('\r');
    await terminal.waitFor(`deleted note ${id}`);
    expect(await terminal.exited).toBe(0);
  } finally {
    terminal.kill();
  }
});

it.concurrent('declining at the terminal keeps the note; NO_COLOR turns colour off (stdio, 2025)', async () => {
  const env = {
    API_KEY: 'cli-test-key',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'pier-cli-tty-')),
    LOG_LEVEL: 'warn',
  };
  const target = ['--', process.execPath, EXAMPLE_MAIN];
  const id = await addNote('Kept', target, env);
  const terminal = inTerminal(
    [process.execPath, BIN, 'call', 'delete_note', `id=${id}`, '--era', '2025', ...target],
    { ...shell, ...env, NO_COLOR: '1' },
  );
  try {
    await terminal.waitFor('? Delete the note "Kept"? This cannot be undone.');
    await terminal.waitFor('Delete this note* (y/n): ');
    terminal.type('yes\r');
    await terminal.waitFor('Send? [Y]es, [n]o (decline), [c]ancel: ');
    terminal.type('n\r');
    await terminal.waitFor(`kept note ${id}`);
    expect(await terminal.exited).toBe(0);
    expect(terminal.screen()).not.toMatch(COLOUR);
  } finally {
    terminal.kill();
  }
});

it.concurrent('Ctrl-C at a question cancels it, and says so', async () => {
  const id = await addNote('Interrupted', [app.url]);
  const terminal = inTerminal([process.execPath, BIN, 'call', 'delete_note', `id=${id}`, app.url], shell);
  try {
    await terminal.waitFor(/\(y\/n\).*: /);
    terminal.type('\u0003');
    await terminal.waitFor('cancelled');
    await terminal.waitFor(`kept note ${id}`);
    expect(await terminal.exited).toBe(0);
  } finally {
    terminal.kill();
  }
});

it.concurrent('at a terminal, --answer answers without asking', async () => {
  const id = await addNote('Answered', [app.url]);
  const terminal = inTerminal(
    [process.execPath, BIN, 'call', 'delete_note', `id=${id}`, '--answer', '{"confirm":true}', app.url],
    { ...shell, NO_COLOR: '1' },
  );
  try {
    await terminal.waitFor(`deleted note ${id}`);
    expect(await terminal.exited).toBe(0);
    expect(terminal.screen()).toContain('pier: answering with --answer (accept)');
    expect(terminal.screen()).not.toContain('Send?');
  } finally {
    terminal.kill();
  }
});
