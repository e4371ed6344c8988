// Test helper (not built): the real OpenTelemetry SDK with in-memory exporters, a Pier server carrying the
// plugin over real HTTP, and official SDK clients in both eras.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Context, context, propagation, ROOT_CONTEXT, type Span, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  createServer,
  definePrompt,
  defineResource,
  defineServer,
  defineTool,
  type PierPlugin,
  type PierServer,
} from '@pier/core';
import { httpTransport } from '@pier/transport-http';
import { z } from 'zod';

// The API's globals: a context manager (so a span set around dispatch is active in the handler) and the
// W3C propagators (what extracts `traceparent`/`tracestate`/`baggage`). Providers are passed explicitly.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
);

/** A MetricReader the test collects from on demand. */
class TestReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Telemetry {
  readonly exporter: InMemorySpanExporter;
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  /** The data points of one metric, collected now. */
  points(name: string): DataPoint<unknown>[];
  collect(): Promise<ResourceMetrics>;
}

export async function telemetry(): Promise<Telemetry> {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  let last: ResourceMetrics | undefined;
  return {
    exporter,
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    points(name) {
      if (last === undefined) throw new Error('collect() first');
      for (const scope of last.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name === name) return metric.dataPoints as DataPoint<unknown>[];
        }
      }
      return [];
    },
    async collect() {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) throw errors[0];
      last = resourceMetrics;
      return resourceMetrics;
    },
  };
}

export type HistogramPoint = DataPoint<Histogram>;

/** A client-side span and the `_meta` that carries it (SEP-414), as an instrumented client would send. */
export function clientSpan(
  provider: BasicTracerProvider,
  name: string,
  baggage?: string,
): { span: Span; meta: Record<string, string>; traceparent: string } {
  const span = provider.getTracer('test-client').startSpan(name);
  const meta: Record<string, string> = {};
  let ctx: Context = trace.setSpan(ROOT_CONTEXT, span);
  if (baggage !== undefined) {
    ctx = propagation.setBaggage(
      ctx,
      propagation.createBaggage(
        Object.fromEntries(
          baggage
            .split(',')
            .map((pair) => pair.split('=') as [string, string])
            .map(([k, v]) => [k, { value: v }]),
        ),
      ),
    );
  }
  propagation.inject(ctx, meta);
  span.end();
  return { span, meta, traceparent: meta.traceparent as string };
}

/** What the handlers saw of the active context (a tool reads its span and baggage). */
export const seenInHandler: { traceId?: string; spanId?: string; baggage?: string }[] = [];

export const tools = [
  defineTool({
    name: 'echo',
    input: { text: z.string() },
    handler: ({ text }) => {
      const active = trace.getSpanContext(context.active());
      const tenant = propagation.getActiveBaggage()?.getEntry('tenant')?.value;
      seenInHandler.push({
        ...(active !== undefined && { traceId: active.traceId, spanId: active.spanId }),
        ...(tenant !== undefined && { baggage: tenant }),
      });
      return text;
    },
  }),
  defineTool({
    name: 'login',
    input: { user: z.string(), password: z.string() },
    handler: ({ password }) => {
      throw new Error(`wrong password ${password}`);
    },
  }),
  defineTool({
    name: 'ask',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return answer.action;
    },
  }),
];

export const resources = [defineResource({ name: 'status', uri: 'app://status', handler: () => 'ok' })];

export const prompts = [
  definePrompt({ name: 'greet', args: { who: z.string() }, handler: ({ who }) => `Hello ${who}` }),
];

const servers: PierServer[] = [];
const clients: Client[] = [];

export async function closeAll(): Promise<void> {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

/** A Pier server with `plugins`, listening over streamable HTTP on 127.0.0.1, port 0. */
export async function listen(plugins: PierPlugin[], sessions = false): Promise<string> {
  const server = createServer(
    defineServer({ name: 'otel-it', version: '1.0.0', tools, prompts, resources }),
    {
      handleSignals: false,
      logStream: { write: () => true },
      plugins,
    },
  );
  servers.push(server);
  const { url } = await server.listen(httpTransport({ port: 0, sessions }));
  return url;
}

export type Era = 'modern' | 'legacy';

/** An official SDK v2 client: `modern` negotiates 2026-07-28, `legacy` speaks 2025-11-25. */
export async function connect(
  url: string,
  era: Era,
  options: { headers?: Record<string, string>; elicitation?: boolean } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: `otel-${era}`, version: '1.0.0' },
    {
      ...(era === 'modern' && { versionNegotiation: { mode: 'auto' as const } }),
      ...(options.elicitation === true && { capabilities: { elicitation: {} } }),
    },
  );
  if (options.elicitation === true) {
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: options.headers ?? {} },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** The finished spans named `name`. */
export function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}
