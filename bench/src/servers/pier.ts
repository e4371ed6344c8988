// Pier as a user writes it: a decorated class, the health plugin with one critical and one
// non-critical check, streamable HTTP. `BENCH_SESSIONS=1` selects the sessionful legacy mode.
// Besides `echo`, the class declares the same echo in issue 31's other tool shapes, each measured on its own
// (declaring them costs `echo` nothing: the engine builds nothing per request): `echo_ctx` (a handler that
// uses its context: one log message to the client and one progress notification), `echo_structured`
// (an output schema) and `echo_scoped` (`scopes`, checked when an authenticator is set).
// `BENCH_TASKS=1` also declares a tool that runs as a task (`task: 'optional'`) and serves a skills
// catalog (`createServer`'s `skills`, an in-memory `memorySkillFiles`); `BENCH_MIDDLEWARE=<n>` adds n
// no-op middlewares (`server.use('*', (ctx, next) => next())`).
// `BENCH_INPUT_REQUIRED=1` adds a tool that asks the user once (`ctx.elicit`) before it echoes — the
// two-round input-required exchange of 2026-07-28 — on a server of its own, so that the tool does not
// add to what every other Pier figure pays per request (a stateless server registers every tool on
// every request). The checks count their calls (reported over the bench control channel) for the
// stampede test.
// `BENCH_AUTH_ISSUER` (an issuer URL serving `/jwks`) adds `authPlugin()` with `jwt()` for that issuer
// (`BENCH_AUTH_CACHE=0`: without the verified-token cache); see auth-overhead.ts. `BENCH_AUTH=constant`
// instead sets an authenticator that accepts everyone at once (the seam alone; see auth-profile.ts).
// `BENCH_OTEL=api` adds `otelPlugin()` with no OpenTelemetry SDK; `BENCH_OTEL=sdk` registers the SDK first
// (context manager, W3C propagators, tracer and meter providers) with exporters that drop everything;
// `BENCH_OTEL=sdk-only` registers that SDK without the plugin; `sdk-traces` and `sdk-metrics` register it with
// the plugin recording only spans or only metrics. `BENCH_OTEL=sdk-floor` registers it with, instead of the
// plugin, the least any instrumentation records per call (otel-floor.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CreateServerOptions,
  createServer,
  defineTool,
  MCPServer,
  type PierPlugin,
  Tool,
  type ToolContext,
} from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { z } from 'zod';
import { benchPort, serveControl } from './common.js';
import { ECHO_DESCRIPTION, ECHO_INPUT, echo } from './echo-tool.js';

/** How long each check takes: long enough that concurrent probes overlap one evaluation. */
const CHECK_MS = 5;
const calls = { upstream: 0, cache: 0 };

const health = healthPlugin({
  checks: [
    {
      name: 'upstream',
      critical: true,
      check: async () => {
        calls.upstream += 1;
        await sleep(CHECK_MS);
        return { status: 'healthy' };
      },
    },
    {
      name: 'cache',
      critical: false,
      check: async () => {
        calls.cache += 1;
        await sleep(CHECK_MS);
        return { status: 'healthy' };
      },
    },
  ],
});

const issuer = process.env.BENCH_AUTH_ISSUER;
// Imported only when used: the other Pier figures (cold start above all) must not pay for loading it.
const auth: PierPlugin[] = [];
if (process.env.BENCH_AUTH === 'constant') {
  // An authenticator that accepts every request at once with one constant caller: what the transport's
  // authentication seam costs by itself, apart from the plugin's token work (auth-profile.ts).
  const outcome = { authInfo: { token: 'constant', clientId: 'bench', scopes: ['notes:read'] } };
  auth.push({ name: 'constant-auth', setup: (ctx) => ctx.setAuthenticator({ authenticate: () => outcome }) });
} else if (issuer !== undefined) {
  // `BENCH_AUTH_MODULE`: another build of the plugin (a saved `dist/`, say the one before a change).
  const { authPlugin, jwt } = (await import(
    process.env.BENCH_AUTH_MODULE ?? '@pier/plugin-auth'
  )) as typeof import('@pier/plugin-auth');
  auth.push(
    authPlugin({
      resource: `http://127.0.0.1:${benchPort()}/mcp`,
      authorizationServers: [issuer],
      verifier: jwt({
        jwksUri: `${issuer}/jwks`,
        ...(process.env.BENCH_AUTH_CACHE === '0' && { cacheTokens: 0 }),
      }),
    }),
  );
}

const otel = process.env.BENCH_OTEL;
// `BENCH_OTEL=observer`: an observer that only dispatches — what core's observer seam costs by itself.
const emptyObserver: PierPlugin = {
  name: 'empty-observer',
  setup: (ctx) =>
    ctx.observe({
      onRequest: (_request, dispatch) => {
        dispatch();
        return () => {};
      },
    }),
};
if (otel?.startsWith('sdk')) await (await import('./otel-sdk.js')).registerNoopSdk();
// Loaded only when asked for, as a user's server without it never loads it (≈ 90 ms of start-up).
const otelPlugins: PierPlugin[] =
  otel === undefined || otel === 'sdk-only'
    ? []
    : otel === 'observer'
      ? [emptyObserver]
      : otel === 'sdk-floor'
        ? [(await import('./otel-floor.js')).floorPlugin()]
        : [
            (await import('@pier/plugin-otel')).otelPlugin({
              ...(otel === 'sdk-traces' && { metrics: false }),
              ...(otel === 'sdk-metrics' && { traces: false }),
            }),
          ];

// `BENCH_LIMITS=memory|redis` (limits-overhead.ts): `limitsPlugin()` with one rule on echo, per principal,
// that never refuses, counted in this process or in Redis (`BENCH_REDIS_URL`; `redis-node-redis`: the same
// store on a node-redis client instead of its own connection); `BENCH_LIMITS_HEADERS=off`
// without the RateLimit headers. `BENCH_LIMITS=noop`: one middleware on tools/call that only calls next()
// (the engine's own cost of a middleware, the floor of any limiter).
const limitsMode = process.env.BENCH_LIMITS;
const limitPlugins: PierPlugin[] = [];
if (limitsMode === 'noop') {
  limitPlugins.push({ name: 'noop', setup: (ctx) => ctx.use('tools/call', (_request, next) => next()) });
} else if (limitsMode === 'noop-headers') {
  limitPlugins.push({
    name: 'noop',
    setup: (ctx) =>
      ctx.use('tools/call', (request, next) => {
        request.setHeader('ratelimit-policy', '"echo";q=1000000000;w=1');
        request.setHeader('ratelimit', '"echo";r=999999999;t=1');
        return next();
      }),
  });
} else if (limitsMode === 'memory' || limitsMode === 'redis' || limitsMode === 'redis-node-redis') {
  const { limitsPlugin } = await import('@pier/plugin-limits');
  const url = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench:${process.pid}:`;
  const { redisLimitStore } = await import('@pier/redis');
  const store =
    limitsMode === 'redis'
      ? redisLimitStore({ url, prefix })
      : limitsMode === 'redis-node-redis'
        ? redisLimitStore({
            // The options `@pier/redis` gives the clients it makes from a URL.
            client: (await import('@redis/client')).createClient({
              url,
              disableOfflineQueue: true,
              commandOptions: { timeout: 0 },
            }) as never,
            prefix,
          })
        : undefined;
  await store?.ready;
  limitPlugins.push(
    limitsPlugin({
      ...(store !== undefined && { store }),
      headers: process.env.BENCH_LIMITS_HEADERS !== 'off',
      rules: [
        { name: 'echo', key: 'principal', tools: 'echo', rate: { limit: 1_000_000_000, windowMs: 1_000 } },
      ],
    }),
  );
}

@MCPServer({
  name: 'bench-pier',
  version: '1.0.0',
  plugins: [health, ...auth, ...otelPlugins, ...limitPlugins],
})
class BenchServer {
  @Tool({ description: ECHO_DESCRIPTION, input: ECHO_INPUT })
  echo(args: { text: string }): string {
    return echo(args);
  }

  @Tool({
    name: 'echo_ctx',
    description: 'Echoes its text, logging it and reporting progress',
    input: ECHO_INPUT,
  })
  async echoCtx(args: { text: string }, ctx: ToolContext): Promise<string> {
    await ctx.sendLog('info', { echoing: args.text });
    await ctx.reportProgress(1, { total: 1 });
    return echo(args);
  }

  @Tool({
    name: 'echo_structured',
    description: 'Echoes its text as structured content',
    input: ECHO_INPUT,
    output: { text: z.string() },
  })
  echoStructured(args: { text: string }): { text: string } {
    return { text: echo(args) };
  }

  @Tool({
    name: 'echo_scoped',
    description: 'Echoes its text to callers with notes:read',
    input: ECHO_INPUT,
    scopes: ['notes:read'],
  })
  echoScoped(args: { text: string }): string {
    return echo(args);
  }
}

/**
 * `BENCH_TASKS=1`: a tool that runs as a task for clients of the tasks extension, declared by a plugin
 * beside the class's tools, and a skills catalog of two skills.
 */
const tasks = process.env.BENCH_TASKS === '1';
const taskTool: PierPlugin = {
  name: 'bench-tasks',
  setup: (ctx) =>
    ctx.addTool(
      defineTool({
        name: 'echo_later',
        description: 'Echoes its text after a while; a task for clients of the tasks extension',
        input: ECHO_INPUT,
        task: 'optional',
        handler: async (args, tool) => {
          await sleep(10, undefined, { signal: tool.signal });
          return echo(args);
        },
      }),
    ),
};
const skill = (name: string, description: string): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n${description}\n`;
// Imported only when used, as the OpenTelemetry and auth modules above: the cold start of the other Pier
// servers must not pay for loading it.
const extras: CreateServerOptions = tasks
  ? {
      plugins: [taskTool],
      skills: (await import('@modelcontextprotocol/server/ext/skills')).memorySkillFiles({
        'echo/SKILL.md': skill('echo', 'How to have a text echoed back with the echo tool.'),
        'echo-later/SKILL.md': skill('echo-later', 'How to run echo_later as a task and poll it.'),
        'echo-later/reference.md': '# echo_later\n\nPoll `tasks/get` until the task completes.\n',
      }),
    }
  : {};

/** The confirmation `confirm_echo` asks for (the protocol's restricted JSON Schema). */
const CONFIRM_SCHEMA = {
  type: 'object' as const,
  properties: { confirm: { type: 'boolean' as const } },
  required: ['confirm'],
};

@MCPServer({ name: 'bench-pier', version: '1.0.0', plugins: [health] })
class AskingBenchServer {
  @Tool({ description: ECHO_DESCRIPTION, input: ECHO_INPUT })
  echo(args: { text: string }): string {
    return echo(args);
  }

  @Tool({ name: 'confirm_echo', description: 'Echoes its text once the user confirms', input: ECHO_INPUT })
  async confirmEcho(args: { text: string }, ctx: ToolContext): Promise<string> {
    const answer = await ctx.elicit(
      { message: `Echo "${args.text}"?`, requestedSchema: CONFIRM_SCHEMA },
      { key: 'confirm' },
    );
    return answer.action === 'accept' && answer.content?.confirm === true ? echo(args) : 'declined';
  }
}

const sessions = process.env.BENCH_SESSIONS === '1';
const asking = process.env.BENCH_INPUT_REQUIRED === '1';
const server = createServer(asking ? AskingBenchServer : BenchServer, undefined, {
  handleSignals: false,
  ...extras,
});
const middlewares = Number(process.env.BENCH_MIDDLEWARE ?? 0);
for (let i = 0; i < middlewares; i += 1) server.use('*', (_ctx, next) => next());
serveControl(() => ({ ...calls }));
await server.listen({ transport: 'streamable-http', port: benchPort(), sessions });
