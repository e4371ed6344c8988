// Pier as a user writes it: a decorated class, the health plugin with one critical and one
// non-critical check, streamable HTTP. `BENCH_SESSIONS=1` selects the sessionful legacy mode.
// The checks count their calls (reported over the bench control channel) for the stampede test.
// `BENCH_OTEL=api` adds `otelPlugin()` with no OpenTelemetry SDK; `BENCH_OTEL=sdk` registers the SDK first
// (context manager, W3C propagators, tracer and meter providers) with exporters that drop everything;
// `BENCH_OTEL=sdk-only` registers that SDK without the plugin.
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, MCPServer, Tool } from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { otelPlugin } from '@pier/plugin-otel';
import { z } from 'zod';
import { benchPort, serveControl } from './common.js';

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

@MCPServer({
  name: 'bench-pier',
  version: '1.0.0',
  plugins: otel === undefined || otel === 'sdk-only' ? [health] : [health, otelPlugin()],
})
class BenchServer {
  @Tool({ description: 'Echoes its text', input: { text: z.string() } })
  echo({ text }: { text: string }): string {
    return text;
  }
}

const sessions = process.env.BENCH_SESSIONS === '1';
const server = createServer(BenchServer, undefined, { handleSignals: false });
serveControl(() => ({ ...calls }));
await server.listen({ transport: 'streamable-http', port: benchPort(), sessions });
