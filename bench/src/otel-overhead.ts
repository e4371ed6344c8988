// `pnpm otel-overhead [calls]`: what @pier/plugin-otel adds to one tools/call, measured on the observer
// itself (its onRequest, the dispatch it wraps, the outcome callback), in a fresh process per setup —
// `api` (no OpenTelemetry SDK: the API's no-ops) and `sdk` (SDK registered, exporters dropping everything,
// see servers/otel-sdk.ts). CPU time of the loop divided by the calls. Compared with Pier's server CPU per
// tools/call from RESULTS.md, this is the added share; unlike a load test it does not depend on what else
// the shared machine runs. `floor` measures the OpenTelemetry SDK alone (one span, one histogram record):
// what no instrumentation of a call can go below. `instructions` counts instructions per call of whole
// servers under valgrind (load-independent).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpObserver, ObservedRequest, PluginContext } from '@pier/core';
import { otelPlugin } from '@pier/plugin-otel';
import { findServer, type ServerSpec } from './harness/servers.js';
import { legacyEcho, modernEcho } from './load/requests.js';

const [mode, callsArg] = process.argv.slice(2);

if (mode === 'floor') {
  // The OpenTelemetry SDK's own floor, without Pier: what any instrumentation of one call pays with the
  // SDK registered as above — one SERVER span with the attributes the plugin sets, started, made active
  // around a no-op, given its protocol version and ended (BatchSpanProcessor, exporter dropping it), and
  // one histogram record with the metric attributes of a tools/call.
  const api = await import('@opentelemetry/api');
  await (await import('./servers/otel-sdk.js')).registerNoopSdk();
  const calls = Number(callsArg ?? 200_000);
  const tracer = api.trace.getTracer('floor');
  const histogram = api.metrics.getMeter('floor').createHistogram('floor.duration', { unit: 's' });
  const nothing = () => {};
  const parts = {
    span: () => {
      const span = tracer.startSpan('tools/call echo', {
        kind: api.SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'jsonrpc.request.id': '1',
          'network.transport': 'tcp',
          'network.protocol.name': 'http',
          'gen_ai.tool.name': 'echo',
          'gen_ai.operation.name': 'execute_tool',
        },
      });
      span.setAttribute('mcp.protocol.version', '2026-07-28');
      span.end();
    },
    'span + context.with': () => {
      const span = tracer.startSpan('tools/call echo', { kind: api.SpanKind.SERVER });
      api.context.with(api.trace.setSpan(api.context.active(), span), nothing);
      span.end();
    },
    'histogram record (5 attributes)': () => {
      histogram.record(0.0001, {
        'mcp.method.name': 'tools/call',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'mcp.protocol.version': '2026-07-28',
        'gen_ai.tool.name': 'echo',
      });
    },
    'performance.now() twice': () => {
      performance.now();
      performance.now();
    },
  };
  const figures: Record<string, number> = {};
  for (const [name, part] of Object.entries(parts)) {
    for (let i = 0; i < Math.min(calls, 20_000); i++) part();
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) part();
    const used = process.cpuUsage(before);
    figures[name] = (used.user + used.system) / calls;
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}

if (mode === 'none' || mode === 'api' || mode === 'sdk') {
  if (mode === 'sdk') await (await import('./servers/otel-sdk.js')).registerNoopSdk();
  const calls = Number(callsArg ?? 200_000);
  let observer: McpObserver | undefined =
    mode === 'none'
      ? {
          onRequest: (_request, dispatch) => {
            dispatch();
            return () => {};
          },
        }
      : undefined;
  (mode === 'none' ? { setup: () => {} } : otelPlugin()).setup({
    observe: (o: McpObserver) => {
      observer = o;
    },
    onClose: () => () => {},
  } as unknown as PluginContext);
  if (observer?.onRequest === undefined) throw new Error('otelPlugin() registered no observer');
  const onRequest = observer.onRequest.bind(observer);
  const headers = new Headers({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
  });
  const result = { content: [{ type: 'text', text: 'hello' }] };
  const run = (n: number, withTrace: boolean) => {
    for (let i = 0; i < n; i++) {
      const request: ObservedRequest = {
        method: 'tools/call',
        id: i,
        params: {
          name: 'echo',
          arguments: { text: 'hello' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            ...(withTrace && { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }),
          },
        },
        era: 'modern',
        sessionId: undefined,
        headers,
        authInfo: undefined,
        session: undefined,
      };
      const finish = onRequest(request, () => {});
      finish?.({ result });
    }
  };
  const figures: Record<string, number> = {};
  for (const withTrace of [false, true]) {
    run(Math.min(calls, 20_000), withTrace); // warm-up: JIT, vocabularies
    const before = process.cpuUsage();
    run(calls, withTrace);
    const used = process.cpuUsage(before);
    figures[withTrace ? 'traceparent in _meta' : 'no traceparent'] = (used.user + used.system) / calls;
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}

if (mode === 'instructions') {
  // `pnpm otel-overhead instructions [server[:era]] …`: instructions per tools/call, counted by valgrind's
  // callgrind in the server's main thread (JavaScript, builtins, V8's runtime, main-thread GC) over 3,000
  // calls after 10,000 of warm-up, 8 keep-alive connections. Unlike CPU time, the count does not depend on
  // what else the shared machine runs (two counts of one server still differ by up to ±10 %). Needs `valgrind` on PATH.
  const servers = process.argv.slice(3);
  for (const arg of servers.length > 0 ? servers : ['pier-sdk', 'pier-otel-floor', 'pier-otel-sdk']) {
    const [id = '', era = 'modern'] = arg.split(':');
    const spec = findServer(id);
    const perCall = await instructionsPerCall(spec, era === 'legacy' ? 'legacy' : 'modern', 10_000, 3_000);
    console.log(`${arg}: ${(perCall / 1000).toFixed(1)} k instructions per tools/call (main thread)`);
  }
  process.exit(0);
}

const calls = Number(mode ?? 200_000);
const LABELS: Record<string, string> = {
  none: 'an empty observer (the loop itself)',
  api: 'otelPlugin(), no SDK',
  sdk: 'otelPlugin(), SDK with no-op exporters',
  floor: 'the SDK alone, no Pier',
};
const self = fileURLToPath(import.meta.url);
for (const setup of ['none', 'api', 'sdk', 'floor']) {
  const out = execFileSync(process.execPath, [self, setup, String(calls)], { encoding: 'utf8' });
  const figures = JSON.parse(out) as Record<string, number>;
  for (const [shape, us] of Object.entries(figures)) {
    console.log(
      `${LABELS[setup]}, ${shape}: ${us.toFixed(2)} µs per ${setup === 'floor' ? 'call' : 'tools/call'}`,
    );
  }
}

/** Instructions per call in the main thread of `spec`'s server run under callgrind (see `instructions`). */
async function instructionsPerCall(
  spec: ServerSpec,
  era: 'modern' | 'legacy',
  warmUp: number,
  measured: number,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'pier-callgrind-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(dir, 'cg.out')}`,
      process.execPath,
      spec.program,
    ],
    { env: { ...process.env, ...spec.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const request = (path: string, method: string, headers: Record<string, string>, body?: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, agent, path, method, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  try {
    const started = Date.now();
    for (;;) {
      if (Date.now() - started > 300_000)
        throw new Error(`${spec.id} did not start under valgrind\n${stderr}`);
      if ((await request(spec.live, 'GET', {}).catch(() => 0)) === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    let id = 0;
    const load = async (count: number) => {
      let left = count;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (left-- > 0) {
            const { headers, body } = era === 'modern' ? modernEcho(++id) : legacyEcho(++id);
            const status = await request('/mcp', 'POST', headers, body);
            if (status !== 200) throw new Error(`${spec.id}: HTTP ${status}`);
          }
        }),
      );
    };
    await load(warmUp);
    execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' });
    await load(measured);
    execFileSync('callgrind_control', ['-i', 'off', String(child.pid)], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
    let main = 0;
    for (const name of readdirSync(dir)) {
      const text = readFileSync(join(dir, name), 'utf8');
      const total = /^totals: (\d+)/m.exec(text);
      if (total !== null && /^thread: 1$/m.test(text)) main += Number(total[1]);
    }
    return main / measured;
  } finally {
    agent.destroy();
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
