// Where each MCP client keeps its server list, and the shape of one entry, as each client documents it.
import { homedir } from 'node:os';
import { join, win32 } from 'node:path';

export const CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** Where a client's entry goes: `user` for every project, `project` for this one (checked in), `local` (Claude Code: this project, only you). */
export type Scope = 'user' | 'project' | 'local';

export const SCOPES: Record<ClientName, readonly Scope[]> = {
  'claude-desktop': ['user'],
  'claude-code': ['local', 'user', 'project'],
  cursor: ['user', 'project'],
  vscode: ['user', 'project'],
};

export const DEFAULT_SCOPE: Record<ClientName, Scope> = {
  'claude-desktop': 'user',
  'claude-code': 'local',
  cursor: 'user',
  vscode: 'user',
};

export interface Place {
  /** The file. */
  readonly file: string;
  /** The keys from the file's root to the object holding the servers by name. */
  readonly path: readonly string[];
}

export interface Environment {
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  /** The project directory (for `project` and `local` scopes). */
  readonly cwd: string;
}

export function hostEnvironment(env: NodeJS.ProcessEnv, cwd: string): Environment {
  return { platform: process.platform, home: env.HOME ?? env.USERPROFILE ?? homedir(), env, cwd };
}

/** The file and key path a client reads its servers from. */
export function placeOf(client: ClientName, scope: Scope, where: Environment): Place {
  const { platform, home, env, cwd } = where;
  const path = platform === 'win32' ? win32.join : join;
  const appData = env.APPDATA ?? path(home, 'AppData', 'Roaming');
  const xdg =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : path(home, '.config');
  const userConfig =
    platform === 'darwin'
      ? path(home, 'Library', 'Application Support')
      : platform === 'win32'
        ? appData
        : xdg;
  switch (client) {
    case 'claude-desktop':
      return { file: path(userConfig, 'Claude', 'claude_desktop_config.json'), path: ['mcpServers'] };
    case 'claude-code':
      if (scope === 'project') return { file: path(cwd, '.mcp.json'), path: ['mcpServers'] };
      return {
        file: path(env.CLAUDE_CONFIG_DIR ?? home, '.claude.json'),
        path: scope === 'user' ? ['mcpServers'] : ['projects', cwd, 'mcpServers'],
      };
    case 'cursor':
      return {
        file: scope === 'project' ? path(cwd, '.cursor', 'mcp.json') : path(home, '.cursor', 'mcp.json'),
        path: ['mcpServers'],
      };
    case 'vscode':
      return {
        file:
          scope === 'project'
            ? path(cwd, '.vscode', 'mcp.json')
            : path(userConfig, 'Code', 'User', 'mcp.json'),
        path: ['servers'],
      };
  }
}

/** What the server is: a command to spawn (stdio), or a URL (streamable HTTP). */
export type ServerSpec =
  | {
      readonly kind: 'command';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'url'; readonly url: string; readonly headers: Readonly<Record<string, string>> };

/** One server's entry in the client's own shape; a string when the client cannot take this server. */
export function entryFor(client: ClientName, spec: ServerSpec): Record<string, unknown> | string {
  if (spec.kind === 'url') {
    const headers = Object.keys(spec.headers).length > 0 ? { headers: { ...spec.headers } } : {};
    switch (client) {
      case 'claude-desktop':
        return 'Claude Desktop adds remote (URL) servers in Settings → Connectors, not in its configuration file; install a command instead, or use claude-code, cursor or vscode';
      case 'claude-code':
        return { type: 'http', url: spec.url, ...headers };
      case 'cursor':
        return { url: spec.url, ...headers };
      case 'vscode':
        return { type: 'http', url: spec.url, ...headers };
    }
  }
  const env = Object.keys(spec.env).length > 0 ? { env: { ...spec.env } } : {};
  const base = { command: spec.command, args: [...spec.args], ...env };
  return client === 'claude-code' || client === 'vscode' ? { type: 'stdio', ...base } : base;
}
