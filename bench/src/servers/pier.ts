// Pier as a user writes it: a decorated class, the health plugin with one critical and one
// non-critical check, streamable HTTP. `BENCH_SESSIONS=1` selects the sessionful legacy mode.
// `BENCH_INPUT_REQUIRED=1` adds a tool that asks the user once (`ctx.elicit`) before it echoes — the
// two-round input-required exchange of 2026-07-28 — on a server of its own, so that the tool does not
// add to what every other Pier figure pays per request (a stateless server registers every tool on
// every request). The checks count their calls (reported over the bench control channel) for the
// stampede test.
// `BENCH_OTEL=api` adds `otelPlugin()` with no OpenTelemetry SDK; `BENCH_OTEL=sdk` registers the SDK first
// (context manager, W3C propagators, tracer and meter providers) with exporters that drop everything;
// `BENCH_OTEL=sdk-only` registers that SDK without the plugin.
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, MCPServer, Tool, type ToolContext } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
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

const otel = process.env.BENCH_OTEL;
if (otel === 'sdk' || otel === 'sdk-only') await (await import('./otel-sdk.js')).registerNoopSdk();
// Loaded only when asked for, as a user's server without it never loads it (≈ 90 ms of start-up).
const otelPlugins =
  otel === undefined || otel === 'sdk-only' ? [] : [(await import('@pier/plugin-otel')).otelPlugin()];

@MCPServer({
  name: 'bench-pier',
  version: '1.0.0',
  plugins: [health, ...otelPlugins],
})
class BenchServer {
  @Tool({ description: ECHO_DESCRIPTION, input: ECHO_INPUT })
  echo(args: { text: string }): string {
    return echo(args);
  }
}

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
const server = createServer(asking ? AskingBenchServer : BenchServer, undefined, { handleSignals: false });
serveControl(() => ({ ...calls }));
await server.listen({ transport: 'streamable-http', port: benchPort(), sessions });
