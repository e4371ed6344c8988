// pier inspect and pier call as a user runs them (the built bin, a real child process) against the example
// app: over streamable HTTP (one app shared by the file, with 2025 sessions so that a 2025 client can be
// asked questions) and over stdio (pier spawns the app), in both eras; exit codes and the errors a user
// meets on bad input. The interactive questions are in call-terminal.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, defineServer, defineTool, type PierServer } from '@pier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../plugin-auth/src/test-as.js';
import { type FakeServer, startFake } from './doctor/test-servers.js';
import type { InspectReport } from './inspect.js';
import { EXAMPLE_MAIN, type ExampleApp, type Ran, runPier, startExampleApp } from './test-helpers.js';

const TOOLS = ['add_note', 'list_notes', 'search_notes', 'delete_note', 'export_notes', 'show_config'];
let app: ExampleApp;
let onlyOld: FakeServer;
let needsAuth: FakeServer;
let withScopes: PierServer;
let withScopesUrl: string;
const STDIO = ['--', process.execPath, EXAMPLE_MAIN];

beforeAll(async () => {
  [app, onlyOld, needsAuth] = await Promise.all([
    startExampleApp({ env: { SESSIONS: 'true' } }),
    startFake('only-2025'),
    startFake('none'),
  ]);
  // Tools that list the OAuth scopes they need (securitySchemes in _meta, as some hosts read them).
  withScopes = createServer(
    defineServer({
      name: 'scoped',
      version: '2.0.0',
      tools: [
        defineTool({
          name: 'read_notes',
          title: 'Read notes',
          _meta: { securitySchemes: [{ type: 'oauth2', scopes: ['notes:read'] }] },
          handler: () => 'notes',
        }),
        defineTool({
          name: 'write_notes',
          _meta: {
            securitySchemes: [{ type: 'noauth' }, { type: 'oauth2', scopes: ['notes:read', 'notes:write'] }],
          },
          handler: () => 'written',
        }),
      ],
    }),
    { handleSignals: false, logLevel: 'warn' },
  );
  withScopesUrl = (await withScopes.listen({ transport: 'streamable-http', port: 0 })).url;
});
afterAll(async () => {
  await Promise.all([app.close(), onlyOld.close(), needsAuth.close(), withScopes.close()]);
});

/**
 * `pier args…`. The app pier spawns over stdio inherits pier's environment: the key, and a data
 * directory of its own for each test (two processes must not write one notes file at once).
 */
const pier = (args: readonly string[], dataDir = mkdtempSync(join(tmpdir(), 'pier-cli-stdio-'))) =>
  runPier(args, { env: { API_KEY: 'cli-test-key', DATA_DIR: dataDir, LOG_LEVEL: 'warn' } });

/** The id of a new note, added over HTTP. */
async function addNote(title: string): Promise<string> {
  const ran = await pier(['call', 'add_note', `title=${title}`, 'body=b', '--json', app.url]);
  expect(ran.code, ran.stderr).toBe(0);
  return idOf(ran.stdout);
}

/** What pier said on stderr, without the progress lines it prints when something takes over a second. */
function said(ran: Ran): string {
  return ran.stderr.replace(/^pier: (connecting to|inspecting) .*…\n/gm, '');
}

function idOf(json: string): string {
  return (JSON.parse(json) as { structuredContent: { note: { id: string } } }).structuredContent.note.id;
}

describe('pier inspect', () => {
  it.concurrent('shows the server, both eras and what it offers as tables (HTTP)', async () => {
    const ran = await pier(['inspect', app.url]);
    expect(ran.code, ran.stderr).toBe(0);
    const lines = ran.stdout.split('\n');
    expect(lines[0]).toBe('Pier notes 1.0.0 (pier-notes)');
    expect(lines).toContain(`target  ${app.url}`);
    expect(lines).toContain('eras    ✓ 2026-07-28   ✓ 2025-11-25');
    expect(ran.stdout).toMatch(
      /^Tools \(6\)\n {2}name +title +input\n {2}add_note +title\*: string, body\*: string, tags: array$/m,
    );
    expect(ran.stdout).toMatch(/^ {2}search_notes +query\*: string$/m);
    expect(ran.stdout).toMatch(
      /^Resources \(\d+\)\n {2}uri +name +type\n {2}notes:\/\/index +All notes +application\/json$/m,
    );
    expect(ran.stdout).toMatch(/^ {2}notes:\/\/\{id\} +One note +text\/markdown$/m);
    expect(ran.stdout).toMatch(/^Prompts \(1\)\n {2}name +title +arguments\n {2}summarize_notes +tag$/m);
    // No colour when stdout is not a terminal.
    expect(ran.stdout).not.toContain('\u001b[');
  });

  it.concurrent('--json over stdio with a 2025 client: the SDK shapes, both eras probed', async () => {
    const ran = await pier(['inspect', '--json', '--era', '2025', ...STDIO]);
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout) as InspectReport;
    expect(report.target).toBe(`${process.execPath} ${EXAMPLE_MAIN}`);
    expect(report.server).toEqual({ name: 'pier-notes', version: '1.0.0', title: 'Pier notes' });
    expect(report.protocolVersion).toBe('2025-11-25');
    expect(report.eras).toEqual({
      '2026-07-28': { ok: true, protocolVersion: '2026-07-28' },
      '2025': { ok: true, protocolVersion: '2025-11-25' },
    });
    expect(report.tools.map((tool) => tool.name)).toEqual(TOOLS);
    expect(report.tools.find((tool) => tool.name === 'search_notes')?.inputSchema.required).toEqual([
      'query',
    ]);
    expect(report.resourceTemplates.map((t) => t.uriTemplate)).toContain('notes://{id}');
    expect(report.prompts.map((p) => p.name)).toEqual(['summarize_notes']);
  });

  it.concurrent('shows the scopes a tool declares, and titles', async () => {
    const ran = await pier(['inspect', withScopesUrl]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(
      /^Tools \(2\)\n {2}name +title +input +scopes\n {2}read_notes +Read notes +notes:read\n {2}write_notes +notes:read notes:write$/m,
    );
  });

  it.concurrent('a server that speaks only 2025: the modern era is marked failed, and --era 2026 cannot connect', async () => {
    const ran = await pier(['inspect', onlyOld.url]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^eras {4}✗ 2026-07-28: .+ {3}✓ 2025-11-25$/m);
    const pinned = await pier(['inspect', '--era', '2026', onlyOld.url]);
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain(`pier: could not connect to ${onlyOld.url} as a 2026-07-28 client:`);
    expect(pinned.stdout).toBe('');
  });

  it.concurrent('a server that is not there, one that needs a token, and a command that dies: exit 1 and why', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/mcp`;
    const [refused, unauthorized, dies] = await Promise.all([
      pier(['inspect', closed]),
      pier(['inspect', needsAuth.url]),
      pier([
        'inspect',
        '--',
        process.execPath,
        '-e',
        'console.error("cannot open the database"); process.exit(3)',
      ]),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`pier: could not connect to ${closed}`);
    expect(refused.stderr).toContain('nothing listens there (connection refused): is the server running?');
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stderr).toContain('the server requires authorization (HTTP 401)');
    expect(unauthorized.stderr).toContain(
      `it needs authorization: pass --header "Authorization=Bearer <token>" (pier doctor ${needsAuth.url} --login`,
    );
    expect(dies.code).toBe(1);
    expect(dies.stderr).toContain('the server wrote on stderr:\n  cannot open the database');
  });

  it.concurrent('usage errors exit 2 and say what to do', async () => {
    const [none, notUrl, era, typo, both] = await Promise.all([
      pier(['inspect']),
      pier(['inspect', 'localhost:3000']),
      pier(['inspect', '--era', '2027', app.url]),
      pier(['inspect', '--jsno', app.url]),
      pier(['inspect', app.url, '--', 'node', 'x.js']),
    ]);
    expect([none.code, notUrl.code, era.code, typo.code, both.code]).toEqual([2, 2, 2, 2, 2]);
    expect(said(none)).toBe(
      'pier: inspect: which server? Give its URL (http://127.0.0.1:3000/mcp) or -- command args…\n',
    );
    expect(notUrl.stderr).toContain(
      '"localhost:3000" is not an http(s) URL; to run a server over stdio put its command after --',
    );
    expect(said(era)).toBe('pier: inspect: --era must be 2026, 2025 or auto (got "2027")\n');
    expect(said(typo)).toBe(
      'pier: inspect: unknown option --jsno (did you mean --json?); see pier inspect --help\n',
    );
    expect(both.stderr).toContain('give a URL or a command after --, not both');
    for (const ran of [none, notUrl, era, typo, both]) expect(ran.stdout).toBe('');
  });
});

describe('pier call', () => {
  it.concurrent('types key=value by the input schema and prints the structured result (HTTP, both eras)', async () => {
    const added = await pier([
      'call',
      'add_note',
      'title=Groceries',
      'body=milk, eggs',
      'tags=["home"]',
      '--era',
      '2026',
      app.url,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(
      /^structured content:\n\{\n {2}"note": \{\n {4}"id": "[\w-]+",\n {4}"title": "Groceries",\n {4}"tags": \[\n {6}"home"\n {4}\],/,
    );
    const id = /"id": "([\w-]+)"/.exec(added.stdout)?.[1];
    // The 2025 client sees the same server state.
    const listed = await pier([
      'call',
      'search_notes',
      '--args',
      '{"query":"groceries"}',
      '--era',
      '2025',
      '--json',
      app.url,
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const result = JSON.parse(listed.stdout) as {
      structuredContent: { notes: { id: string; body: string }[] };
    };
    expect(result.structuredContent.notes).toEqual([expect.objectContaining({ id, body: 'milk, eggs' })]);
  });

  it.concurrent('over stdio in both eras: a note added by one spawned server is read, then deleted after asking', async () => {
    // Each call spawns the app; they share a data directory, one after another.
    const dataDir = mkdtempSync(join(tmpdir(), 'pier-cli-stdio-'));
    const added = await pier(
      ['call', 'add_note', 'title=From stdio', 'body=hello', '--era', '2026', ...STDIO],
      dataDir,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('"title": "From stdio"');
    const listed = await pier(['call', 'list_notes', '--era', '2025', '--json', ...STDIO], dataDir);
    expect(listed.code, listed.stderr).toBe(0);
    // stdout is the tool's answer only: the server's log lines went to stderr.
    const notes = (
      JSON.parse(listed.stdout) as { structuredContent: { notes: { id: string; title: string }[] } }
    ).structuredContent.notes;
    expect(notes.map((note) => note.title)).toEqual(['From stdio']);
    const id = notes[0]?.id;
    const declined = await pier(
      ['call', 'delete_note', `id=${id}`, '--answer', 'decline', '--era', '2025', ...STDIO],
      dataDir,
    );
    expect(declined.code, declined.stderr).toBe(0);
    expect(declined.stderr).toContain(
      'pier: the tool asks: Delete the note "From stdio"? This cannot be undone.',
    );
    expect(declined.stdout).toBe(`kept note ${id}\n`);
    const accepted = await pier(
      ['call', 'delete_note', `id=${id}`, '--answer', '{"confirm":true}', '--era', '2026', ...STDIO],
      dataDir,
    );
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toBe(`deleted note ${id}\n`);
  });

  it.concurrent.each([
    ['a 2025 client in a session', '2025'],
    ['a 2026-07-28 client', '2026'],
  ] as const)('answers the tool’s question with --answer (HTTP, %s)', async (_name, era) => {
    const title = `Answer ${era}`;
    const id = await addNote(title);
    const declined = await pier([
      'call',
      'delete_note',
      `id=${id}`,
      '--answer',
      'decline',
      '--era',
      era,
      app.url,
    ]);
    expect(declined.code, declined.stderr).toBe(0);
    expect(declined.stderr).toContain(
      `pier: the tool asks: Delete the note "${title}"? This cannot be undone.`,
    );
    expect(declined.stderr).toContain('pier: answering with --answer (decline)');
    expect(declined.stdout).toBe(`kept note ${id}\n`);
    const accepted = await pier([
      'call',
      'delete_note',
      `id=${id}`,
      '--answer',
      '{"confirm":true}',
      '--era',
      era,
      app.url,
    ]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toBe(`deleted note ${id}\n`);
  });

  it.concurrent('without a terminal and without --answer the question is cancelled, and says so', async () => {
    const id = await addNote('No answer');
    const ran = await pier(['call', 'delete_note', `id=${id}`, app.url]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('pier: no terminal and no --answer left: cancelling the question');
    expect(ran.stdout).toBe(`kept note ${id}\n`);
  });

  it.concurrent('a tool that reports an error exits 1 and shows it', async () => {
    const ran = await pier(['call', 'delete_note', 'id=no-such-note', '--answer', 'cancel', app.url]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('The tool reported an error:\nno note with id "no-such-note"\n');
    expect(said(ran)).toBe('');
  });

  it.concurrent('bad input exits 2 with the fix; nothing is called', async () => {
    const runs = await Promise.all([
      pier(['call', 'add_nte', app.url]),
      pier(['call', 'add_note', 'titel=x', 'body=y', app.url]),
      pier(['call', 'add_note', 'title=x', 'body=y', 'tags=home', app.url]),
      pier(['call', 'add_note', '--args', '[1]', app.url]),
      pier(['call', 'add_note', '--args', '{oops', app.url]),
      pier(['call', 'delete_note', 'id=1', '--answer', 'maybe', app.url]),
      pier(['call', app.url]),
      pier(['call', 'list_notes', 'tag', app.url]),
      pier(['call', 'add_note', 'title=x', app.url]),
      pier(['call', 'add_note', 'titel=x', 'tags=home', app.url]),
    ]);
    expect(runs.map((ran) => ran.code)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
    const [tool, argument, json, notObject, notJson, answer, noTool, notPair, missing, all] = runs.map(said);
    expect(tool).toBe(
      `pier: call: the server has no tool "add_nte" (did you mean add_note?); it has: ${TOOLS.join(', ')}\n`,
    );
    expect(argument).toBe(
      'pier: call: add_note takes no argument "titel" (did you mean title?); it takes: title, body, tags\n',
    );
    expect(json).toBe('pier: call: tags must be JSON (array) (got "home")\n');
    expect(notObject).toBe('pier: call: --args must be a JSON object, such as {"city":"Oslo"}\n');
    expect(notJson).toMatch(/^pier: call: --args is not JSON: /);
    expect(answer).toMatch(/^pier: call: --answer must be a JSON object, decline or cancel: /);
    expect(noTool).toBe('pier: call: which tool? pier call <tool> [key=value…] <url | -- command>\n');
    expect(notPair).toBe('pier: call: "tag" is neither key=value nor a URL; arguments are key=value\n');
    expect(missing).toBe('pier: call: add_note needs body (string): pier call add_note body=… …\n');
    // Every problem with the arguments at once (the typo's real name is not also called missing).
    expect(all).toBe(
      [
        'pier: call: 3 problems:',
        '  - add_note takes no argument "titel" (did you mean title?); it takes: title, body, tags',
        '  - tags must be JSON (array) (got "home")',
        '  - add_note needs body (string): pier call add_note body=… …',
        '',
      ].join('\n'),
    );
    // Nothing was added by the refused calls.
    const listed = await pier(['call', 'search_notes', 'query=x', '--json', app.url]);
    expect(
      JSON.parse(listed.stdout).structuredContent.notes.filter((n: { title: string }) => n.title === 'x'),
    ).toEqual([]);
  });
});
