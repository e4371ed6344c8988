// `pier dev --inspector`: the official MCP Inspector (npm @modelcontextprotocol/inspector), which needs
// Node 22.19 or newer: run through npx with the registry's `node` package when this Node is older.
import { type ChildProcess, spawn } from 'node:child_process';

/** The Inspector release pier dev runs (its web UI, `--web`). */
export const INSPECTOR_VERSION = '2.12.0';
const INSPECTOR_NODE = '24';

export interface InspectorOptions {
  /** Streamable HTTP: the server's URL. */
  readonly url?: string;
  /** stdio: the command the Inspector spawns (a pier dev of its own, so reloads still happen). */
  readonly command?: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Each line the Inspector prints. */
  readonly onLine: (line: string) => void;
}

export interface RunningInspector {
  readonly child: ChildProcess;
  /** The URL it printed (with its auth token), once it did. */
  readonly url: Promise<string>;
  stop(): Promise<void>;
}

export function startInspector(options: InspectorOptions): RunningInspector {
  const major = Number(process.versions.node.split('.')[0]);
  const minor = Number(process.versions.node.split('.')[1]);
  const nodeOk = major > 22 || (major === 22 && minor >= 19);
  const packages = nodeOk
    ? ['-p', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`]
    : ['-p', `node@${INSPECTOR_NODE}`, '-p', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`];
  const server =
    options.url !== undefined
      ? ['--transport', 'http', '--server-url', options.url]
      : ['--transport', 'stdio', '--', ...(options.command ?? [])];
  const child = spawn('npx', ['-y', ...packages, '--', 'mcp-inspector', '--web', ...server], {
    cwd: options.cwd,
    env: { ...options.env, MCP_AUTO_OPEN_ENABLED: 'false', BROWSER: 'none', npm_config_loglevel: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    shell: process.platform === 'win32',
  });
  let resolveUrl: (url: string) => void = () => undefined;
  let rejectUrl: (error: Error) => void = () => undefined;
  const url = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    rejectUrl = reject;
  });
  url.catch(() => undefined);
  let buffer = '';
  const read = (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (/EBADENGINE|^npm warn/i.test(line)) continue;
      // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes around the URL
      const found = /(https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\]):\d+[^\s\u001b]*)/.exec(line)?.[1];
      if (found !== undefined) resolveUrl(found);
      options.onLine(line);
    }
  };
  child.stdout?.setEncoding('utf8').on('data', read);
  child.stderr?.setEncoding('utf8').on('data', read);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      rejectUrl(new Error(`the Inspector exited (${signal ?? code}) before printing its URL`));
      resolve();
    });
    child.once('error', (error) => {
      rejectUrl(error);
      resolve();
    });
  });
  return {
    child,
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // npx runs the Inspector in a process group of its own: signal the group.
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGTERM');
        else child.kill('SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      const force = setTimeout(() => {
        try {
          if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, 5_000);
      await exited;
      clearTimeout(force);
    },
  };
}
