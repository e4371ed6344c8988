// The servers under test, as the harness starts them.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Era } from '../load/requests.js';

const here = dirname(fileURLToPath(import.meta.url));
/** bench/dist/servers (compiled programs) and bench/peers (npm-installed peer frameworks). */
const SERVERS_DIR = join(here, '..', 'servers');
export const PEERS_DIR = join(here, '..', '..', 'peers');

export type ServerId =
  | 'raw'
  | 'hand'
  | 'sdk-v2'
  | 'sdk-v1'
  | 'pier'
  | 'pier-sessions'
  | 'pier-ask'
  | 'fastmcp'
  | 'pier-otel'
  | 'pier-otel-sessions'
  | 'pier-otel-sdk'
  | 'pier-otel-sdk-sessions'
  | 'pier-auth'
  | 'pier-auth-sessions'
  | 'pier-tasks'
  | 'pier-tasks-sessions'
  | 'pier-mw'
  | 'pier-mw-sessions'
  | 'notes'
  | 'notes-sessions'
  | 'pier-sdk'
  | 'pier-observer'
  | 'pier-otel-sdk-traces'
  | 'pier-otel-sdk-metrics'
  | 'pier-otel-floor'
  | 'pier-limits'
  | 'pier-limits-no-headers'
  | 'pier-noop-middleware'
  | 'pier-noop-headers'
  | 'hand-ratelimit-fields';

export interface ServerSpec {
  readonly id: ServerId;
  /** What it is, for the report. */
  readonly label: string;
  readonly program: string;
  readonly env?: Readonly<Record<string, string>>;
  /** The request shapes it serves, each measured. */
  readonly eras: readonly Era[];
  /** 2025-era requests need a session (initialize first, then `Mcp-Session-Id`). */
  readonly sessionful: boolean;
  /** Liveness and readiness paths (cold start polls them). */
  readonly live: string;
  readonly ready: string;
  /** Measure /health/live and /health/ready throughput (the ceiling and Pier). */
  readonly healthLoad: boolean;
  /** Counts health-check calls (the stampede test). */
  readonly countsChecks: boolean;
  /** Not cold-started (the same program as another server, started only to be loaded). */
  readonly noColdStart?: true;
  /**
   * Started only for issue 31's tool shapes (shapes.ts says what is called on it): not cold-started, no
   * memory, no stampede, no health load.
   */
  readonly shape?: true;
  /**
   * Protected by `authPlugin()` + `jwt()`: the harness starts a token issuer (harness/auth-issuer.ts), gives
   * the server its URL and sends an access token for it with every request.
   */
  readonly auth?: true;
}

export const SERVERS: readonly ServerSpec[] = [
  {
    id: 'raw',
    label: 'raw node:http, canned answer (ceiling)',
    program: join(SERVERS_DIR, 'raw.js'),
    eras: ['canned'],
    sessionful: false,
    live: '/health/live',
    ready: '/health/ready',
    healthLoad: true,
    countsChecks: false,
  },
  {
    id: 'hand',
    label: 'hand-written JSON-RPC on node:http, zod, no SDK (practical ceiling)',
    program: join(SERVERS_DIR, 'hand.js'),
    eras: ['modern', 'legacy'],
    sessionful: false,
    live: '/health/live',
    ready: '/health/ready',
    healthLoad: false,
    countsChecks: false,
  },
  {
    id: 'sdk-v2',
    label: 'SDK v2 `createMcpHandler` + `toNodeHandler` on node:http',
    program: join(SERVERS_DIR, 'sdk-v2.js'),
    eras: ['modern', 'legacy'],
    sessionful: false,
    live: '/health/live',
    ready: '/health/ready',
    healthLoad: false,
    countsChecks: false,
  },
  {
    id: 'sdk-v1',
    label: 'SDK v1 `StreamableHTTPServerTransport`, sessionful, JSON responses',
    program: join(SERVERS_DIR, 'sdk-v1.js'),
    eras: ['legacy'],
    sessionful: true,
    live: '/health/live',
    ready: '/health/ready',
    healthLoad: false,
    countsChecks: false,
  },
  {
    id: 'pier',
    label: 'Pier, stateless (default), health plugin',
    program: join(SERVERS_DIR, 'pier.js'),
    eras: ['modern', 'legacy'],
    sessionful: false,
    live: '/health/live',
    ready: '/health/ready',
    healthLoad: true,
    countsChecks: true,
  },
  {
    id: 'pier-sessions',
    label: 'Pier, `sessions: true`, health plugin',
    program: join(SERVERS_DIR, 'pier.js'),
    env: { BENCH_SESSIONS: '1' },
    eras: ['modern', 'legacy'],
    sessionful: true,
    live: '/health/live',
    ready: '/health/ready',
    healthLoad: false,
    countsChecks: true,
  },
  {
    id: 'pier-ask',
    label: 'Pier, stateless, plus a tool that asks once (`ctx.elicit`)',
    program: join(SERVERS_DIR, 'pier.js'),
    env: { BENCH_INPUT_REQUIRED: '1' },
    eras: ['modern', 'input-required'],
    sessionful: false,
    live: '/health/live',
    ready: '/health/ready',
    healthLoad: false,
    countsChecks: false,
    noColdStart: true,
  },
  {
    id: 'fastmcp',
    label: 'fastmcp (httpStream, its defaults)',
    program: join(PEERS_DIR, 'fastmcp-server.mjs'),
    eras: ['legacy'],
    sessionful: true,
    live: '/health',
    ready: '/health',
    healthLoad: false,
    countsChecks: false,
  },
];

/**
 * Pier's bench server with one feature on, stateless and `sessions: true` (ids `<id>-sessions`), for issue
 * 31's tool shapes (shapes.ts): each is the Pier server of `pier.ts` (or the example app) with `env`.
 */
function shapeServers(
  id: ServerId,
  label: string,
  env: Readonly<Record<string, string>>,
  extra: Partial<ServerSpec> = {},
): ServerSpec[] {
  const base = {
    program: join(SERVERS_DIR, 'pier.js'),
    eras: [],
    live: '/health/live',
    ready: '/health/ready',
    healthLoad: false,
    countsChecks: false,
    noColdStart: true,
    shape: true,
    ...extra,
  } as const;
  return [
    { ...base, id, label: `${label}, stateless`, env, sessionful: false },
    {
      ...base,
      id: `${id}-sessions` as ServerId,
      label: `${label}, \`sessions: true\``,
      env: { ...env, BENCH_SESSIONS: '1' },
      sessionful: true,
    },
  ];
}

/** The servers of issue 31's tool shapes besides `pier` and `pier-sessions` (see shapes.ts). */
export const SHAPE_SERVERS: readonly ServerSpec[] = [
  ...shapeServers(
    'pier-auth',
    'Pier + `authPlugin()` with `jwt()` (ES256, verified-token cache)',
    {},
    { auth: true },
  ),
  ...shapeServers('pier-tasks', 'Pier + a task tool + a skills catalog', { BENCH_TASKS: '1' }),
  ...shapeServers('pier-otel', 'Pier + `otelPlugin()`, no OpenTelemetry SDK', { BENCH_OTEL: 'api' }),
  ...shapeServers('pier-otel-sdk', 'Pier + `otelPlugin()`, SDK with no-op exporters', { BENCH_OTEL: 'sdk' }),
  ...shapeServers('pier-mw', "Pier + three no-op middlewares (`use('*', …)`)", { BENCH_MIDDLEWARE: '3' }),
  ...shapeServers(
    'notes',
    'the example app (apps/example-server), as its main.js serves HTTP',
    {},
    {
      program: join(SERVERS_DIR, 'notes.js'),
    },
  ),
];

/**
 * Variants measured by `pnpm ab` and `pnpm profile` only (not in the full run): Pier with
 * `@pier/plugin-otel` (`pier-otel` and `pier-otel-sdk` are in {@link SHAPE_SERVERS}); the SDK registered
 * without the plugin (`pier-sdk`: what registering the SDK costs by itself, its AsyncLocalStorage context
 * manager above all); an observer that only dispatches; the plugin recording only spans or only metrics;
 * the SDK's floor.
 */
const OTEL_VARIANTS = {
  'pier-sdk': ['sdk-only', 'Pier, SDK with no-op exporters registered, no plugin'],
  'pier-observer': ['observer', 'Pier + an observer that only dispatches (core’s observer seam alone)'],
  'pier-otel-sdk-traces': ['sdk-traces', 'Pier + otelPlugin({ metrics: false }), SDK with no-op exporters'],
  'pier-otel-sdk-metrics': ['sdk-metrics', 'Pier + otelPlugin({ traces: false }), SDK with no-op exporters'],
  'pier-otel-floor': [
    'sdk-floor',
    'Pier + the SDK floor of one span and one record (no plugin), no-op exporters',
  ],
} as const;
const VARIANTS: readonly [string, string, Readonly<Record<string, string>>][] = [
  ...Object.entries(OTEL_VARIANTS).map(([id, [mode, label]]): [string, string, Record<string, string>] => [
    id,
    label,
    { BENCH_OTEL: mode },
  ]),
  ['pier-limits', 'Pier + limitsPlugin(), one rate on echo, in memory', { BENCH_LIMITS: 'memory' }],
  [
    'pier-limits-no-headers',
    'Pier + limitsPlugin({ headers: false }), one rate on echo, in memory',
    { BENCH_LIMITS: 'memory', BENCH_LIMITS_HEADERS: 'off' },
  ],
  [
    'pier-noop-middleware',
    'Pier + one middleware on tools/call that only calls next()',
    { BENCH_LIMITS: 'noop' },
  ],
  [
    'pier-noop-headers',
    'Pier + one middleware on tools/call that sets the two RateLimit fields (constant) and calls next()',
    { BENCH_LIMITS: 'noop-headers' },
  ],
];
export const PLUGIN_VARIANTS: readonly ServerSpec[] = [
  ...VARIANTS.map(
    ([id, label, env]): ServerSpec => ({
      id: id as ServerId,
      label,
      program: join(SERVERS_DIR, 'pier.js'),
      env,
      eras: ['modern', 'legacy'],
      sessionful: false,
      live: '/health/live',
      ready: '/health/ready',
      healthLoad: false,
      countsChecks: true,
    }),
  ),
  {
    // What node:http alone spends on the two RateLimit fields (the floor of any limiter that sends them).
    ...(SERVERS.find((spec) => spec.id === 'hand') as ServerSpec),
    id: 'hand-ratelimit-fields',
    label: 'hand-written server answering with the two RateLimit fields (constant) besides Content-Type',
    env: { HAND_RATELIMIT_FIELDS: 'on' },
  },
];

/** Peer frameworks that are not installed or cannot run here, with the reason (for the report). */
export const UNAVAILABLE_PEERS: readonly { readonly name: string; readonly reason: string }[] = [
  {
    name: '@mcpkit-dev/core',
    reason:
      'not on the npm registry: `npm view @mcpkit-dev/core` answers 404 (E404), so it cannot be installed',
  },
];

/** Why a server cannot run here, or undefined when it can. */
export function unavailable(spec: ServerSpec): string | undefined {
  if (!existsSync(spec.program)) return `${spec.program} is missing (run \`pnpm build\` in bench)`;
  if (spec.id === 'fastmcp' && !existsSync(join(PEERS_DIR, 'node_modules', 'fastmcp'))) {
    return 'not installed: run `npm ci` in bench/peers (`pnpm bench` does it)';
  }
  return undefined;
}

/** Every server a script can name: the full run's, the tool shapes' and the plugin variants. */
export const ALL_SERVERS: readonly ServerSpec[] = [...SERVERS, ...SHAPE_SERVERS, ...PLUGIN_VARIANTS];

/** The server named `id`, or an error listing the ids there are. */
export function findServer(id: string): ServerSpec {
  const spec = ALL_SERVERS.find((s) => s.id === id);
  if (spec === undefined) {
    throw new Error(`unknown server ${id}; one of ${ALL_SERVERS.map((s) => s.id).join(', ')}`);
  }
  return spec;
}
