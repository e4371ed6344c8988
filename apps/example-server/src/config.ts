// The app's configuration: the seed's table (API key, base URL, debug, retries, timeout, database URL,
// log level) plus what an MCP server needs to run (transport, host, port, data directory, drain delay).
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { type Config, type LoadConfigOptions, loadConfig, parseConfig, z } from '@pier/config';
import {
  DATA_DIR_NAME,
  DEFAULT_BASE_URL,
  DEFAULT_DRAIN_DELAY_MS,
  DEFAULT_HOST,
  DEFAULT_MAX_RETRIES,
  DEFAULT_PORT,
  DEFAULT_TIMEOUT_MS,
  MCP_PATH,
  SERVER_NAME,
  SERVER_VERSION,
} from './settings.js';

/** The transports the app can serve. `stdio` is the default: MCP clients start servers as a command. */
export const TRANSPORT_NAMES = ['stdio', 'streamable-http'] as const;

/** The spec, given the environment (the data directory's default depends on it). */
export function configSpec(env: NodeJS.ProcessEnv = process.env) {
  return {
    apiKey: {
      schema: z.string().min(1),
      env: 'API_KEY',
      secret: true,
      description: 'Key for the upstream API',
    },
    baseUrl: {
      schema: z.url({ protocol: /^https?$/ }).default(DEFAULT_BASE_URL),
      env: 'BASE_URL',
      description: 'Base URL of the upstream API (checked by /health, not critical)',
    },
    debug: {
      schema: z.boolean().default(false),
      env: 'DEBUG',
      description: 'Log at debug level (overrides LOG_LEVEL)',
    },
    maxRetries: {
      schema: z.number().int().min(0).default(DEFAULT_MAX_RETRIES),
      env: 'MAX_RETRIES',
      description: 'Retries after a failed upstream request',
    },
    timeout: {
      schema: z.number().int().positive().default(DEFAULT_TIMEOUT_MS),
      env: 'TIMEOUT',
      description: 'Upstream request timeout in milliseconds (also the health check timeout)',
    },
    databaseUrl: {
      schema: z.string().optional(),
      env: 'DATABASE_URL',
      arg: false,
      secret: true,
      description: 'Database URL; may hold a password (reported as present or not, never used here)',
    },
    logLevel: {
      schema: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
      env: 'LOG_LEVEL',
      arg: false,
      description: 'Log verbosity (on stderr)',
    },
    transport: {
      schema: z.enum(TRANSPORT_NAMES).default('stdio'),
      env: 'TRANSPORT',
      description: 'How MCP is served',
    },
    host: {
      schema: z.string().min(1).default(DEFAULT_HOST),
      env: 'HOST',
      description: 'Address to bind (streamable-http); 0.0.0.0 in a container',
    },
    port: {
      schema: z.number().int().min(0).max(65_535).default(DEFAULT_PORT),
      env: 'PORT',
      description: 'Port to listen on (streamable-http); 0 picks a free one',
    },
    dataDir: {
      schema: z.string().min(1).default(defaultDataDir(env)),
      env: 'DATA_DIR',
      description: 'Directory of notes.json; a relative path is taken from the working directory',
    },
    authIssuer: {
      schema: z.url({ protocol: /^https?$/ }).optional(),
      env: 'AUTH_ISSUER',
      description:
        'Issuer URL of the OAuth authorization server whose access tokens are accepted (http for loopback only); with AUTH_RESOURCE turns auth on',
    },
    authResource: {
      schema: z.url({ protocol: /^https?$/ }).optional(),
      env: 'AUTH_RESOURCE',
      description: 'Canonical URL of this server’s MCP endpoint, as clients reach it (the tokens’ audience)',
    },
    authUpstreamIssuer: {
      schema: z.url({ protocol: /^https?$/ }).optional(),
      env: 'AUTH_UPSTREAM_ISSUER',
      description:
        'Proxy mode: the identity provider users log in with — https://github.com, https://accounts.google.com, or any OpenID Connect issuer URL; with AUTH_UPSTREAM_CLIENT_ID and AUTH_UPSTREAM_CLIENT_SECRET',
    },
    authUpstreamClientId: {
      schema: z.string().min(1).optional(),
      env: 'AUTH_UPSTREAM_CLIENT_ID',
      description: 'Proxy mode: the client id of this server’s OAuth app at the provider',
    },
    authUpstreamClientSecret: {
      schema: z.string().min(1).optional(),
      env: 'AUTH_UPSTREAM_CLIENT_SECRET',
      arg: false,
      secret: true,
      description: 'Proxy mode: the client secret of that OAuth app (also seals the proxy’s stored state)',
    },
    sessions: {
      schema: z.boolean().default(false),
      env: 'SESSIONS',
      description:
        'Give 2025-era clients sessions over HTTP (needed for them to be asked, e.g. to confirm a delete)',
    },
    metrics: {
      schema: z.boolean().default(false),
      env: 'METRICS',
      description: 'Serve /metrics in Prometheus text format (streamable-http)',
    },
    otlpEndpoint: {
      schema: z.url({ protocol: /^https?$/ }).optional(),
      env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      arg: false,
      description: 'Push traces and metrics over OTLP/HTTP to this collector (e.g. http://localhost:4318)',
    },
    redisUrl: {
      schema: z.url({ protocol: /^rediss?$/ }).optional(),
      env: 'REDIS_URL',
      arg: false,
      secret: true,
      description:
        'Scale-out mode: redis://[user:password@]host:port[/db]; replicas share notes, change events and the input-required key through it',
    },
    requestStateKey: {
      schema: z.string().min(32).optional(),
      env: 'REQUEST_STATE_KEY',
      arg: false,
      secret: true,
      description:
        'Key (≥ 32 characters) signing input-required state, the same on every replica; with REDIS_URL and unset, one is shared through Redis',
    },
    advertiseUrl: {
      schema: z.url({ protocol: /^https?$/ }).optional(),
      env: 'ADVERTISE_URL',
      description:
        "Scale-out mode with SESSIONS: the URL other replicas reach this one's MCP endpoint at (e.g. http://<pod IP>:3000/mcp); default the listener's own URL",
    },
    addNoteLimit: {
      schema: z.number().int().min(1).optional(),
      env: 'ADD_NOTE_LIMIT',
      description:
        'At most this many add_note calls per principal per minute (a token bucket; across every replica with REDIS_URL); unset: no limit',
    },
    drainDelayMs: {
      schema: z.number().int().min(0).default(DEFAULT_DRAIN_DELAY_MS),
      env: 'DRAIN_DELAY_MS',
      description: 'After SIGTERM, how long MCP requests are still served while readiness fails',
    },
  } as const;
}

/** The validated configuration. */
export type AppConfig = Config<ReturnType<typeof configSpec>>;

/** What a user should read when the key is missing: where an MCP client puts environment variables. */
export const MISSING_API_KEY_HINT = [
  '',
  `${SERVER_NAME} needs an API key: set the API_KEY environment variable (preferred) or pass --api-key <key>.`,
  'In an MCP client, put it in the "env" map of the server entry, for example:',
  '  "pier-notes": { "command": "node", "args": ["/path/to/dist/main.js"], "env": { "API_KEY": "<your key>" } }',
  'For local development, `pnpm start` passes a development key.',
  '',
].join('\n');

/**
 * Reads the configuration from `argv` and `env` like `loadConfig` (problems on stderr, exit code 1;
 * `--help` and `--version` on stdout, exit code 0), adding {@link MISSING_API_KEY_HINT} after the
 * problem lines when the key is missing.
 */
export function readConfig(
  options: Omit<LoadConfigOptions, 'name' | 'version' | 'description'> = {},
): AppConfig {
  const env = options.env ?? process.env;
  const argv = options.argv ?? process.argv.slice(2);
  const spec = configSpec(env);
  const parsed = parseConfig(spec, { argv, env });
  const keyMissing =
    !parsed.ok && parsed.issues.some((issue) => issue.path === 'apiKey' && issue.code === 'required');
  const stderr = options.stderr ?? process.stderr;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const config = loadConfig(spec, {
    ...options,
    argv,
    env,
    name: SERVER_NAME,
    version: SERVER_VERSION,
    description: 'A notes MCP server built with Pier: notes persist in <data dir>/notes.json.',
    exit: (code) => {
      if (code === 1 && keyMissing) stderr.write(MISSING_API_KEY_HINT);
      return exit(code);
    },
  });
  const problem = authProblem(config);
  if (problem !== undefined) {
    stderr.write(`${problem}\n`);
    exit(1);
  }
  return config;
}

/**
 * Auth is off, a resource server (AUTH_ISSUER + AUTH_RESOURCE), or the OAuth proxy (the three AUTH_UPSTREAM_*
 * settings, AUTH_RESOURCE defaulting to the loopback listener's own URL); plain http only on a loopback
 * address (tokens would travel in clear). The message names the settings, never a value.
 */
export function authProblem(
  config: Pick<
    AppConfig,
    | 'authIssuer'
    | 'authResource'
    | 'authUpstreamIssuer'
    | 'authUpstreamClientId'
    | 'authUpstreamClientSecret'
    | 'host'
    | 'port'
  >,
): string | undefined {
  const { authIssuer, authResource } = config;
  for (const [field, variable, value] of [
    ['authIssuer', 'AUTH_ISSUER', authIssuer],
    ['authResource', 'AUTH_RESOURCE', authResource],
    ['authUpstreamIssuer', 'AUTH_UPSTREAM_ISSUER', config.authUpstreamIssuer],
  ] as const) {
    if (value === undefined) continue;
    const url = new URL(value);
    if (url.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
      return `${field} (${variable}): http is accepted for a loopback address only; use https`;
    }
  }
  const upstream = [config.authUpstreamIssuer, config.authUpstreamClientId, config.authUpstreamClientSecret];
  const proxy = upstream.some((value) => value !== undefined);
  if (proxy) {
    if (upstream.some((value) => value === undefined)) {
      return 'authUpstreamIssuer (AUTH_UPSTREAM_ISSUER), authUpstreamClientId (AUTH_UPSTREAM_CLIENT_ID) and authUpstreamClientSecret (AUTH_UPSTREAM_CLIENT_SECRET) go together: set all three for proxy mode';
    }
    if (authIssuer !== undefined) {
      return 'authIssuer (AUTH_ISSUER) and authUpstreamIssuer (AUTH_UPSTREAM_ISSUER) exclude each other: the first accepts tokens of your authorization server, the second makes this server the authorization server';
    }
    if (authResource === undefined && proxyResource(config) === undefined) {
      return 'authResource (AUTH_RESOURCE) is required in proxy mode unless the server listens on a loopback address and a fixed port: set it to the public URL of the MCP endpoint';
    }
  } else if ((authIssuer === undefined) !== (authResource === undefined)) {
    return 'authIssuer (AUTH_ISSUER) and authResource (AUTH_RESOURCE) go together: set both to turn auth on, or neither';
  }
  return undefined;
}

/**
 * The OAuth proxy's resource URL: AUTH_RESOURCE, else the MCP URL of a listener on a loopback address and a
 * fixed port (development); `undefined` when neither can be known before listening.
 */
export function proxyResource(config: Pick<AppConfig, 'authResource' | 'host' | 'port'>): string | undefined {
  if (config.authResource !== undefined) return config.authResource;
  const loopback = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(config.host);
  if (!loopback || config.port === 0) return undefined;
  const host = config.host === '::1' ? '[::1]' : config.host;
  return `http://${host}:${config.port}${MCP_PATH}`;
}

/** The data directory as an absolute path (a relative `DATA_DIR` is taken from the working directory). */
export function dataDirOf(config: Pick<AppConfig, 'dataDir'>): string {
  return resolve(config.dataDir);
}

/**
 * The default data directory: the user's data directory, so that a client that starts the server from
 * an unknown working directory (desktop apps often use `/`) still finds the same notes every time.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, DATA_DIR_NAME);
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA || env.APPDATA;
    return join(local || join(homedir(), 'AppData', 'Local'), DATA_DIR_NAME);
  }
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', DATA_DIR_NAME);
  return join(homedir(), '.local', 'share', DATA_DIR_NAME);
}
