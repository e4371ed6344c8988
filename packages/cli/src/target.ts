// Where a command reaches a server — a URL (streamable HTTP) or a command line after `--` (stdio) — and
// the official SDK v2 client connected to it in the era asked for.
import {
  Client,
  type ClientOptions,
  type ElicitRequest,
  type ElicitResult,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CliError, messageOf, type UsageIssues } from './errors.js';

export type Target =
  | { readonly kind: 'url'; readonly url: URL }
  | { readonly kind: 'command'; readonly command: string; readonly args: readonly string[] };

/** `2026`: the 2026-07-28 revision (`server/discover`); `2025`: the `initialize` handshake; `auto`: either. */
export type EraChoice = '2026' | '2025' | 'auto';

export const MODERN = '2026-07-28';
/** The 2025-era revisions a `--era 2025` client offers and accepts, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/**
 * The target from a command's positional and `--` tail; `undefined`, with the problem recorded in
 * `issues`, when there is none, two, or the positional is not an http(s) URL.
 */
export function parseTarget(
  issues: UsageIssues,
  positional: string | undefined,
  tail: string[] | undefined,
): Target | undefined {
  if (tail !== undefined && tail.length > 0) {
    if (positional !== undefined) {
      issues.add(
        `give a URL or a command after --, not both (got "${positional.slice(0, 60)}" and a command)`,
      );
      return undefined;
    }
    const [program = '', ...args] = tail;
    return { kind: 'command', command: program, args };
  }
  if (positional === undefined) {
    issues.add('which server? Give its URL (http://127.0.0.1:3000/mcp) or -- command args…');
    return undefined;
  }
  if (!/^https?:\/\//i.test(positional) || !URL.canParse(positional)) {
    issues.add(
      `"${positional.slice(0, 60)}" is not an http(s) URL; to run a server over stdio put its command after --`,
    );
    return undefined;
  }
  return { kind: 'url', url: new URL(positional) };
}

/** The era `--era` names (`auto` when absent, or, recorded in `issues`, unknown). */
export function parseEra(issues: UsageIssues, value: string | undefined): EraChoice {
  if (value === undefined) return 'auto';
  if (value === '2026' || value === MODERN) return '2026';
  if (value === '2025' || LEGACY_VERSIONS.includes(value)) return '2025';
  if (value !== 'auto') issues.add(`--era must be 2026, 2025 or auto (got "${value.slice(0, 20)}")`);
  return 'auto';
}

export function describeTarget(target: Target): string {
  return target.kind === 'url' ? target.url.href : [target.command, ...target.args].join(' ');
}

/** Options of {@link connectTarget}. */
export interface ConnectTargetOptions {
  readonly era: EraChoice;
  /** Answers `elicitation/create` (2025) and `input_required` elicitation (2026); declares the capability. */
  readonly onElicit?: (params: ElicitRequest['params']) => Promise<ElicitResult>;
  /** Extra HTTP headers, such as `Authorization`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The spawned server's environment (stdio). Default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly timeoutMs?: number;
  /** Where the spawned server's stderr goes (stdio). Default: collected, shown on failure. */
  readonly stderr?: 'inherit' | 'collect';
}

/** A connected client and what it learned in the handshake. */
export interface Connection {
  readonly client: Client;
  readonly protocolVersion: string;
  readonly era: '2026' | '2025';
  /** What the spawned server wrote on stderr so far (stdio, `collect`). */
  stderr(): string;
  close(): Promise<void>;
}

export function clientOptions(era: EraChoice, elicit: boolean): ClientOptions {
  const negotiation: Pick<ClientOptions, 'versionNegotiation' | 'supportedProtocolVersions'> =
    era === '2026'
      ? { versionNegotiation: { mode: { pin: MODERN } } }
      : era === '2025'
        ? { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: LEGACY_VERSIONS }
        : { versionNegotiation: { mode: 'auto' } };
  return { ...negotiation, capabilities: elicit ? { elicitation: { form: {}, url: {} } } : {} };
}

/** Connects the SDK v2 client to `target` in `era`; a `CONNECT_FAILED` error says why it could not. */
export async function connectTarget(target: Target, options: ConnectTargetOptions): Promise<Connection> {
  const client = new Client(
    { name: 'pier-cli', version: '0.1.0' },
    clientOptions(options.era, options.onElicit !== undefined),
  );
  const { onElicit } = options;
  if (onElicit !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => onElicit(request.params));
  }
  let collected = '';
  // Settles when the spawned server's stderr ended (or at once over HTTP): its last words come after
  // the client saw the connection close.
  let stderrEnded: Promise<void> = Promise.resolve();
  let transport: StreamableHTTPClientTransport | StdioClientTransport;
  if (target.kind === 'url') {
    transport = new StreamableHTTPClientTransport(target.url, {
      requestInit: { headers: { ...options.headers } },
    });
  } else {
    const env = Object.fromEntries(
      Object.entries(options.env ?? process.env).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    const stdio = new StdioClientTransport({
      command: target.command,
      args: [...target.args],
      env,
      ...(options.cwd !== undefined && { cwd: options.cwd }),
      stderr: options.stderr === 'inherit' ? 'inherit' : 'pipe',
    });
    const stream = stdio.stderr;
    stream?.on('data', (chunk: Buffer) => {
      if (collected.length < 64_000) collected += chunk.toString('utf8');
    });
    if (stream !== null) stderrEnded = new Promise((resolve) => stream.once('close', () => resolve()));
    transport = stdio;
  }
  try {
    await client.connect(transport, { timeout: options.timeoutMs ?? 15_000 });
  } catch (error) {
    await client.close().catch(() => undefined);
    await Promise.race([stderrEnded, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    const where = describeTarget(target);
    const output =
      collected.trim() === '' ? '' : `\nthe server wrote on stderr:\n${indent(collected.trim())}`;
    throw new CliError(
      'CONNECT_FAILED',
      `could not connect to ${where}${options.era === 'auto' ? '' : ` as a ${options.era === '2026' ? MODERN : '2025'} client`}: ${messageOf(error)}${hintFor(error, target)}${output}`,
      { cause: error },
    );
  }
  const protocolVersion = client.getNegotiatedProtocolVersion() ?? '';
  return {
    client,
    protocolVersion,
    era: protocolVersion === MODERN ? '2026' : '2025',
    stderr: () => collected,
    close: () => client.close(),
  };
}

/** What the user can do about a failed connection, from the status or system error in its causes. */
function hintFor(error: unknown, target: Target): string {
  let status: unknown;
  let code: unknown;
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; depth++) {
    const record = cause as Error & { status?: unknown; code?: unknown; data?: { status?: unknown } };
    status ??= record.status ?? record.data?.status;
    if (typeof record.code === 'string' && /^E[A-Z]+$/.test(record.code)) code = record.code;
    cause = cause.cause;
  }
  if (target.kind !== 'url') return '';
  const where = target.url.href;
  if (status === 401)
    return `\nit needs authorization: pass --header "Authorization=Bearer <token>" (pier doctor ${where} --login walks a client's sign-in)`;
  if (status === 403)
    return '\nit refused the request (HTTP 403): a Host or Origin check, or a token without the scope it needs';
  if (status === 404)
    return '\nnothing answers MCP at this path (HTTP 404): check the path (Pier serves /mcp)';
  if (code === 'ECONNREFUSED') return '\nnothing listens there (connection refused): is the server running?';
  if (code === 'ENOTFOUND') return `\nthe host ${target.url.hostname} does not resolve`;
  return '';
}

function indent(text: string): string {
  return text
    .split('\n')
    .slice(-20)
    .map((line) => `  ${line}`)
    .join('\n');
}
