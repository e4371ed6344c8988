// pier install as a user runs it (the built bin, a real child process) with a temporary HOME: each client's
// file is created or merged in place (other servers, settings and comments kept, a backup beside it),
// --dry-run touches nothing, and a secret given with --env (or taken from the shell) reaches the file but
// never the output. Where each client keeps its file on Linux, macOS and Windows is checked through the
// function that decides it: only Linux runs here, so the other two platforms are given to it (its
// `platform`, home and environment are parameters), not run.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ClientName, placeOf, type Scope } from './clients.js';
import type { InstallReport } from './install.js';
import { BIN, type Ran, runPier } from './test-helpers.js';

const SECRET = 'sk-live-0123456789abcdef';

/** A home and a project directory of their own, and `pier` run with HOME pointing there. */
function sandbox() {
  const root = mkdtempSync(join(tmpdir(), 'pier-install-'));
  const home = join(root, 'home');
  const project = join(root, 'notes-app');
  mkdirSync(home);
  mkdirSync(project);
  const pier = (args: readonly string[], env: Record<string, string> = {}) =>
    runPier(['install', ...args], { cwd: project, env: { HOME: home, ...env } });
  const write = (path: string, text: string, mode = 0o600) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    chmodSync(path, mode);
  };
  return { home, project, pier, write };
}

function backupsOf(file: string): string[] {
  const name = file.split('/').at(-1) ?? '';
  return readdirSync(dirname(file))
    .filter((entry) => entry.startsWith(`${name}.pier-backup-`))
    .map((entry) => join(dirname(file), entry));
}

function expectNoSecret(ran: Ran): void {
  expect(ran.stdout).not.toContain(SECRET);
  expect(ran.stderr).not.toContain(SECRET);
}

describe('pier install', () => {
  it('merges into an existing Claude Desktop file: other servers and settings kept, a backup beside it, the secret masked', async () => {
    const { home, pier, write } = sandbox();
    const file = join(home, '.config', 'Claude', 'claude_desktop_config.json');
    const before = `${JSON.stringify(
      {
        globalShortcut: 'Ctrl+Space',
        mcpServers: { weather: { command: 'npx', args: ['-y', 'weather-mcp'], env: { TOKEN: 'theirs' } } },
      },
      null,
      2,
    )}\n`;
    write(file, before, 0o640);
    const ran = await pier([
      'claude-desktop',
      '--name',
      'notes',
      '--env',
      `API_KEY=${SECRET}`,
      '--',
      'node',
      '/srv/notes/main.js',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expectNoSecret(ran);
    expect(ran.stdout).toContain(`Added to ${file} (claude-desktop, user): notes`);
    expect(ran.stdout).toContain('"API_KEY": "********"');
    expect(ran.stdout).toContain('Restart Claude Desktop to load it.');
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after).toEqual({
      globalShortcut: 'Ctrl+Space',
      mcpServers: {
        weather: { command: 'npx', args: ['-y', 'weather-mcp'], env: { TOKEN: 'theirs' } },
        notes: { command: 'node', args: ['/srv/notes/main.js'], env: { API_KEY: SECRET } },
      },
    });
    expect(statSync(file).mode & 0o777).toBe(0o640);
    const [backup, ...more] = backupsOf(file);
    expect(more).toEqual([]);
    expect(readFileSync(backup as string, 'utf8')).toBe(before);
    expect(ran.stdout).toContain(`backup: ${backup}`);
  });

  it('--dry-run prints the change, masked, and touches nothing; --json says what it would do', async () => {
    const { home, pier, write } = sandbox();
    const file = join(home, '.cursor', 'mcp.json');
    const before = '{\n  "mcpServers": {}\n}\n';
    write(file, before);
    const ran = await pier([
      'cursor',
      '--name',
      'notes',
      '--env',
      `API_KEY=${SECRET}`,
      '--dry-run',
      '--',
      'node',
      '/srv/main.js',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expectNoSecret(ran);
    expect(ran.stdout).toBe(
      [
        `Would add to ${file} (cursor, user): notes`,
        '  {',
        '    "notes": {',
        '      "command": "node",',
        '      "args": [',
        '        "/srv/main.js"',
        '      ],',
        '      "env": {',
        '        "API_KEY": "********"',
        '      }',
        '    }',
        '  }',
        '',
      ].join('\n'),
    );
    const json = await pier([
      'cursor',
      '--name',
      'notes',
      '--env',
      `API_KEY=${SECRET}`,
      '--dry-run',
      '--json',
      '--',
      'node',
      '/srv/main.js',
    ]);
    expectNoSecret(json);
    expect(JSON.parse(json.stdout) as InstallReport).toEqual({
      client: 'cursor',
      scope: 'user',
      file,
      name: 'notes',
      entry: { command: 'node', args: ['/srv/main.js'], env: { API_KEY: '********' } },
      action: 'would-update',
      replaced: false,
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(backupsOf(file)).toEqual([]);
    // No file yet: --dry-run does not create one either.
    const fresh = await pier(['claude-desktop', '--dry-run', '--json', '--', 'node', '/srv/main.js']);
    expect(JSON.parse(fresh.stdout).action).toBe('would-create');
    expect(existsSync(join(home, '.config', 'Claude'))).toBe(false);
  });

  it('--env K takes the value from the shell, never echoed; an unset one is a usage error', async () => {
    const { home, pier } = sandbox();
    const ran = await pier(
      ['cursor', '--name', 'notes', '--env', 'NOTES_TOKEN', '--json', '--', 'node', '/srv/main.js'],
      {
        NOTES_TOKEN: SECRET,
      },
    );
    expect(ran.code, ran.stderr).toBe(0);
    expectNoSecret(ran);
    expect((JSON.parse(ran.stdout) as InstallReport).entry).toMatchObject({
      env: { NOTES_TOKEN: '********' },
    });
    const file = join(home, '.cursor', 'mcp.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.notes.env).toEqual({ NOTES_TOKEN: SECRET });
    // A new file may hold secrets: only its owner reads it.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const unset = await pier([
      'cursor',
      '--name',
      'other',
      '--env',
      'NOT_SET_HERE',
      '--',
      'node',
      '/srv/main.js',
    ]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toBe(
      'pier: install: --env NOT_SET_HERE: the variable is not set in this shell; give NOT_SET_HERE=value\n',
    );
  });

  it('an entry of the same name: refused without --force, replaced with it, left alone when identical', async () => {
    const { home, pier } = sandbox();
    const file = join(home, '.cursor', 'mcp.json');
    const first = await pier(['cursor', '--name', 'notes', '--', 'node', '/srv/v1.js']);
    expect(first.code, first.stderr).toBe(0);
    const written = readFileSync(file, 'utf8');
    const refused = await pier([
      'cursor',
      '--name',
      'notes',
      '--env',
      `API_KEY=${SECRET}`,
      '--',
      'node',
      '/srv/v2.js',
    ]);
    expect(refused.code).toBe(1);
    expectNoSecret(refused);
    expect(refused.stderr).toBe(
      `pier: install: ${file} already has a server named "notes" (node /srv/v1.js); pass --force to replace it, or --name to add another\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(written);
    const same = await pier(['cursor', '--name', 'notes', '--json', '--', 'node', '/srv/v1.js']);
    expect(JSON.parse(same.stdout).action).toBe('unchanged');
    expect(backupsOf(file)).toEqual([]);
    const forced = await pier(['cursor', '--name', 'notes', '--force', '--json', '--', 'node', '/srv/v2.js']);
    expect(JSON.parse(forced.stdout)).toMatchObject({ action: 'updated', replaced: true });
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers).toEqual({
      notes: { command: 'node', args: ['/srv/v2.js'] },
    });
    expect(backupsOf(file)).toHaveLength(1);
  });

  it('VS Code: its comments and trailing commas are read, and kept in the file', async () => {
    const { home, pier, write } = sandbox();
    const file = join(home, '.config', 'Code', 'User', 'mcp.json');
    write(
      file,
      '{\n  // my servers\n  "servers": {\n    "weather": {\n      "type": "stdio",\n      "command": "weather"\n    },\n  },\n  "inputs": [],\n}\n',
    );
    const ran = await pier(['vscode', '--name', 'notes', '--', 'node', '/srv/main.js']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(
      '{\n  // my servers\n  "servers": {\n    "weather": {\n      "type": "stdio",\n      "command": "weather"\n    },\n    "notes": {\n      "type": "stdio",\n      "command": "node",\n      "args": [\n        "/srv/main.js"\n      ]\n    },\n  },\n  "inputs": [],\n}\n',
    );
  });

  it('Claude Code: this project only by default (~/.claude.json), the project file with --scope project', async () => {
    const { home, project, pier, write } = sandbox();
    write(
      join(home, '.claude.json'),
      JSON.stringify({ numStartups: 7, projects: { '/elsewhere': { mcpServers: {} } } }),
    );
    const local = await pier(['claude-code', '--name', 'notes', '--', 'node', '/srv/main.js']);
    expect(local.code, local.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'))).toEqual({
      numStartups: 7,
      projects: {
        '/elsewhere': { mcpServers: {} },
        [project]: { mcpServers: { notes: { type: 'stdio', command: 'node', args: ['/srv/main.js'] } } },
      },
    });
    const shared = await pier([
      'claude-code',
      '--scope',
      'project',
      '--name',
      'notes',
      'https://notes.example.com/mcp',
    ]);
    expect(shared.code, shared.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { notes: { type: 'http', url: 'https://notes.example.com/mcp' } },
    });
  });

  it('installs this project: its built server by default, pier dev on its source with --dev', async () => {
    const { home, project, pier } = sandbox();
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: '@acme/notes-server' }));
    const unbuilt = await pier(['cursor']);
    expect(unbuilt.code).toBe(1);
    expect(unbuilt.stderr).toContain(
      `${join(project, 'dist', 'main.js')} does not exist: build the server first`,
    );
    mkdirSync(join(project, 'dist'));
    writeFileSync(join(project, 'dist', 'main.js'), '');
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'main.ts'), '');
    expect((await pier(['cursor'])).code).toBe(0);
    expect((await pier(['cursor', '--dev', '--name', 'notes-dev'])).code).toBe(0);
    const servers = JSON.parse(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8')).mcpServers;
    // Absolute paths: a GUI client starts it from elsewhere, maybe without this PATH.
    expect(servers).toEqual({
      'notes-server': { command: process.execPath, args: [join(project, 'dist', 'main.js')] },
      'notes-dev': { command: process.execPath, args: [BIN, 'dev', join(project, 'src', 'main.ts')] },
    });
  });

  it('a remote server: its header masked; Claude Desktop takes none in its file', async () => {
    const { home, pier } = sandbox();
    const ran = await pier([
      'vscode',
      '--name',
      'notes',
      '--header',
      `Authorization=Bearer ${SECRET}`,
      'https://notes.example.com/mcp',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expectNoSecret(ran);
    expect(ran.stdout).toContain('"Authorization": "********"');
    expect(
      JSON.parse(readFileSync(join(home, '.config', 'Code', 'User', 'mcp.json'), 'utf8')).servers.notes,
    ).toEqual({
      type: 'http',
      url: 'https://notes.example.com/mcp',
      headers: { Authorization: `Bearer ${SECRET}` },
    });
    const desktop = await pier(['claude-desktop', 'https://notes.example.com/mcp']);
    expect(desktop.code).toBe(2);
    expect(desktop.stderr).toContain('Claude Desktop adds remote (URL) servers in Settings → Connectors');
  });

  it('bad input: exit 2 for usage, exit 1 and nothing written for a file it cannot read', async () => {
    const { home, pier, write } = sandbox();
    const file = join(home, '.cursor', 'mcp.json');
    write(file, '{ "mcpServers": { "a": 1 ');
    const broken = await pier(['cursor', '--env', `API_KEY=${SECRET}`, '--', 'node', 'x.js']);
    expect(broken.code).toBe(1);
    expectNoSecret(broken);
    expect(broken.stderr).toMatch(
      new RegExp(
        `^pier: install: ${file} is not valid JSON \\(\\w+ at line 1, column \\d+\\); fix it or move it away, nothing was written\\n$`,
      ),
    );
    expect(readFileSync(file, 'utf8')).toBe('{ "mcpServers": { "a": 1 ');
    expect(backupsOf(file)).toEqual([]);
    write(file, '{ "mcpServers": [] }');
    const notObject = await pier(['cursor', '--', 'node', 'x.js']);
    expect(notObject.code).toBe(1);
    expect(notObject.stderr).toContain(`${file}: "mcpServers" is not an object; nothing was written`);
    const usage = await Promise.all([
      pier(['cursr', '--', 'node', 'x.js']),
      pier([]),
      pier(['cursor', '--scope', 'local', '--', 'node', 'x.js']),
      pier(['cursor', '--env', 'not a pair', '--', 'node', 'x.js']),
      pier(['cursor', '--name', 'a/b', '--', 'node', 'x.js']),
      pier(['cursor', '--']),
    ]);
    expect(usage.map((ran) => ran.code)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(usage.map((ran) => ran.stderr)).toEqual([
      'pier: install: unknown client "cursr" (did you mean cursor?); clients: claude-desktop, claude-code, cursor, vscode\n',
      'pier: install: which client? one of claude-desktop, claude-code, cursor, vscode\n',
      'pier: install: cursor has no scope "local"; its scopes: user, project\n',
      'pier: install: --env takes KEY=VALUE or KEY (got neither: no "=" and not a variable name)\n',
      'pier: install: --name may hold letters, digits, spaces and . _ - @ (got "a/b")\n',
      'pier: install: nothing after --; give the command that starts the server\n',
    ]);
  });
});

describe('where each client keeps its servers', () => {
  const linux = { platform: 'linux', home: '/home/ada', env: {}, cwd: '/home/ada/notes' } as const;
  const mac = { platform: 'darwin', home: '/Users/ada', env: {}, cwd: '/Users/ada/notes' } as const;
  const windows = {
    platform: 'win32',
    home: 'C:\\Users\\ada',
    env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' },
    cwd: 'C:\\src\\notes',
  } as const;
  const cases: [string, typeof linux | typeof mac | typeof windows, ClientName, Scope, string, string[]][] = [
    [
      'Linux',
      linux,
      'claude-desktop',
      'user',
      '/home/ada/.config/Claude/claude_desktop_config.json',
      ['mcpServers'],
    ],
    [
      'macOS',
      mac,
      'claude-desktop',
      'user',
      '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
      ['mcpServers'],
    ],
    [
      'Windows',
      windows,
      'claude-desktop',
      'user',
      'C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      ['mcpServers'],
    ],
    [
      'Linux',
      linux,
      'claude-code',
      'local',
      '/home/ada/.claude.json',
      ['projects', '/home/ada/notes', 'mcpServers'],
    ],
    ['macOS', mac, 'claude-code', 'user', '/Users/ada/.claude.json', ['mcpServers']],
    ['Windows', windows, 'claude-code', 'project', 'C:\\src\\notes\\.mcp.json', ['mcpServers']],
    [
      'Windows',
      windows,
      'claude-code',
      'local',
      'C:\\Users\\ada\\.claude.json',
      ['projects', 'C:\\src\\notes', 'mcpServers'],
    ],
    ['Linux', linux, 'cursor', 'user', '/home/ada/.cursor/mcp.json', ['mcpServers']],
    ['Windows', windows, 'cursor', 'user', 'C:\\Users\\ada\\.cursor\\mcp.json', ['mcpServers']],
    ['macOS', mac, 'cursor', 'project', '/Users/ada/notes/.cursor/mcp.json', ['mcpServers']],
    ['Linux', linux, 'vscode', 'user', '/home/ada/.config/Code/User/mcp.json', ['servers']],
    [
      'macOS',
      mac,
      'vscode',
      'user',
      '/Users/ada/Library/Application Support/Code/User/mcp.json',
      ['servers'],
    ],
    [
      'Windows',
      windows,
      'vscode',
      'user',
      'C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\mcp.json',
      ['servers'],
    ],
    ['Windows', windows, 'vscode', 'project', 'C:\\src\\notes\\.vscode\\mcp.json', ['servers']],
  ];
  it.each(cases)('%s: %s (%s scope) → %s', (_os, where, client, scope, file, path) => {
    expect(placeOf(client, scope, where)).toEqual({ file, path });
  });

  it('follows XDG_CONFIG_HOME on Linux and CLAUDE_CONFIG_DIR for Claude Code', () => {
    const env = { XDG_CONFIG_HOME: '/home/ada/.xdg', CLAUDE_CONFIG_DIR: '/home/ada/.claude-work' };
    expect(placeOf('claude-desktop', 'user', { ...linux, env }).file).toBe(
      '/home/ada/.xdg/Claude/claude_desktop_config.json',
    );
    expect(placeOf('vscode', 'user', { ...linux, env }).file).toBe('/home/ada/.xdg/Code/User/mcp.json');
    expect(placeOf('claude-code', 'user', { ...linux, env }).file).toBe(
      '/home/ada/.claude-work/.claude.json',
    );
  });
});
