// The observer: one SERVER span per request and notification Pier receives, one CLIENT span per request
// it sends the client, the duration histograms and the gauges — per OpenTelemetry's MCP conventions.

import {
  type Attributes,
  type Context,
  context,
  type Gauge,
  type Histogram,
  type Link,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
  type UpDownCounter,
} from '@opentelemetry/api';
import type {
  McpObserver,
  ObservedClientRequest,
  ObservedNotification,
  ObservedOutcome,
  ObservedSession,
  ObservedStream,
  ObservedTaskStatus,
} from '@pier/core';
import {
  DURATION_BUCKETS,
  HEALTH_STATUSES,
  KNOWN_METHODS,
  META_PROTOCOL_VERSION,
  OTEL_ATTRIBUTES,
  OTEL_METRICS,
  OTHER,
  TASK_STATUSES,
  TOOL_ERROR,
} from './conventions.js';
import type { NormalizedOptions } from './options.js';
import type { PrometheusRegistry } from './prometheus.js';
import { protocolVersionOf, Vocabulary } from './vocabulary.js';

export const SCOPE = '@pier/plugin-otel';
/** An attribute name of the conventions (what literal keys are checked against). */
type AttributeName = (typeof OTEL_ATTRIBUTES)[keyof typeof OTEL_ATTRIBUTES];
export const SCOPE_VERSION = '0.1.0';
/** Node's longest timer (about 24.8 days); a longer TTL is waited for in steps. */
const MAX_TIMER_MS = 2_147_483_647;

type Meta = Readonly<Record<string, unknown>>;

const metaGetter: TextMapGetter<Meta> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

const headersGetter: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

/** What the observer records into: the OpenTelemetry instruments and, when `/metrics` is on, the registry. */
interface Instruments {
  operation(seconds: number, attributes: Attributes): void;
  session(seconds: number, attributes: Attributes): void;
  sessions(delta: number, attributes: Attributes): void;
  requests(delta: number): void;
  streams(delta: number, attributes: Attributes): void;
  tasks(delta: number, attributes: Attributes): void;
  health(value: number, attributes: Attributes): void;
}

/** The observer, with what the plugin drives besides MCP traffic. */
export interface Telemetry extends McpObserver {
  /** Records a run of the health checks (`pier.health.check.status`). */
  health(evaluation: {
    readonly checks: readonly { readonly name: string; readonly status: string }[];
  }): void;
  /** Stops the timers that take expired tasks off the gauge (the server closed). */
  close(): void;
}

/** Builds the observer for one server. */
export function createObserver(
  options: NormalizedOptions,
  registry: PrometheusRegistry | undefined,
): Telemetry {
  const tracer: Tracer | undefined = options.traces
    ? (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE, SCOPE_VERSION)
    : undefined;
  const instruments = createInstruments(options, registry);
  const methods = new Vocabulary(32, KNOWN_METHODS);
  const tools = new Vocabulary(256);
  const prompts = new Vocabulary(256);
  const versions = new Vocabulary(16);
  // Per call, only what differs between calls is built: a proven target's span name, and the metric
  // attributes of a method or target, are made once and reused while they stay the same.
  const names = new SpanNames(methods, tools, prompts);
  const measuredSets = new Map<string, MeasuredSet>();
  /** The protocol version each stdio connection or 2025 session negotiated (from its `initialize`). */
  const negotiated = new WeakMap<ObservedSession, string>();
  /** Tasks counted in the gauge, by id: their status here and the timer that drops them at their TTL. */
  const tasks = new Map<string, { status: string; expiry: NodeJS.Timeout }>();

  const versionOf = (
    params: Readonly<Record<string, unknown>> | undefined,
    headers: Headers | undefined,
    session: ObservedSession | undefined,
  ): string | undefined => {
    const meta = params?._meta as Meta | undefined;
    const stated = meta?.[META_PROTOCOL_VERSION];
    // The version every call of a client states: known already, no pattern to test nor header to read.
    if (typeof stated === 'string' && versions.has(stated)) {
      if (session !== undefined && !negotiated.has(session)) negotiated.set(session, stated);
      return stated;
    }
    const version =
      protocolVersionOf(stated) ??
      protocolVersionOf(headers?.get('mcp-protocol-version')) ??
      (session === undefined ? undefined : negotiated.get(session));
    if (version === undefined) return undefined;
    // A 2026-07-28 connection has no initialize: its requests tell the version.
    if (session !== undefined && !negotiated.has(session)) negotiated.set(session, version);
    versions.learn(version);
    return versions.of(version);
  };

  /** The metric attributes of one operation (see {@link MeasuredSet}). */
  const measured = (
    method: string,
    target: Target,
    uri: string | undefined,
    http: boolean,
    version: string | undefined,
    failure: Failure | undefined,
  ): Attributes => {
    // Object spread of these dotted keys costs microseconds on Node 20: attributes are assigned one by one.
    const attributes: Attributes = { [OTEL_ATTRIBUTES.mcpMethodName]: methods.of(method) };
    connection(attributes, http, undefined, version);
    if (target.tool !== undefined) {
      attributes[OTEL_ATTRIBUTES.genAiToolName] = tools.of(target.tool);
      attributes[OTEL_ATTRIBUTES.genAiOperationName] = 'execute_tool';
    }
    if (target.prompt !== undefined) attributes[OTEL_ATTRIBUTES.genAiPromptName] = prompts.of(target.prompt);
    if (uri !== undefined) attributes[OTEL_ATTRIBUTES.mcpResourceUri] = uri;
    if (failure !== undefined) {
      attributes[OTEL_ATTRIBUTES.errorType] = failure.type;
      if (failure.code !== undefined) attributes[OTEL_ATTRIBUTES.rpcResponseStatusCode] = failure.code;
    }
    // The SDK sorts the keys on every record to find the series (`hashAttributes`): in order already, its
    // sort is a single pass.
    const sorted: Attributes = {};
    for (const key of Object.keys(attributes).sort()) sorted[key] = attributes[key];
    return Object.freeze(sorted);
  };

  return {
    onRequest(request, dispatch) {
      const started = performance.now();
      instruments.requests(1);
      const { method, params, headers } = request;
      const target = targetOf(method, params);
      const http = headers !== undefined;
      let version = versionOf(params, headers, request.session);

      let span: ReturnType<Tracer['startSpan']> | undefined;
      let startName: string | undefined;
      // Set on the span at its start when known; set again only if an initialize answer changed it.
      const startVersion = version;
      if (tracer !== undefined) {
        // Literal keys (OTEL_ATTRIBUTES's values, checked by `satisfies`): V8 builds this shape from a boilerplate,
        // where computed keys cost a megamorphic keyed store each, on every request.
        const spanAttributes: Attributes = {
          'mcp.method.name': method,
          'jsonrpc.request.id': String(request.id),
          'network.transport': http ? 'tcp' : 'pipe',
        } satisfies Partial<Record<AttributeName, unknown>>;
        if (http) spanAttributes['network.protocol.name' satisfies AttributeName] = 'http';
        const sessionId = request.session?.sessionId ?? request.sessionId;
        if (sessionId !== undefined) spanAttributes['mcp.session.id' satisfies AttributeName] = sessionId;
        if (version !== undefined) spanAttributes['mcp.protocol.version' satisfies AttributeName] = version;
        if (target.tool !== undefined) {
          spanAttributes[OTEL_ATTRIBUTES.genAiToolName] = target.tool;
          spanAttributes[OTEL_ATTRIBUTES.genAiOperationName] = 'execute_tool';
          const recorded = recordedArguments(options.recordArguments.get(target.tool), params);
          if (recorded !== undefined) spanAttributes[OTEL_ATTRIBUTES.genAiToolCallArguments] = recorded;
        }
        if (target.prompt !== undefined) spanAttributes[OTEL_ATTRIBUTES.genAiPromptName] = target.prompt;
        if (target.uri !== undefined) spanAttributes[OTEL_ATTRIBUTES.mcpResourceUri] = target.uri;
        startName = names.of(method, target);
        const active = context.active();
        // The everyday call carries no trace context: no propagator to run, no links to build.
        const traced =
          typeof (params?._meta as Meta | undefined)?.traceparent === 'string' ||
          headers?.has('traceparent') === true;
        const { parent, links } = traced
          ? parentOf(active, params, headers)
          : { parent: active, links: undefined };
        span = tracer.startSpan(
          startName,
          links === undefined || links.length === 0
            ? { kind: SpanKind.SERVER, attributes: spanAttributes }
            : { kind: SpanKind.SERVER, attributes: spanAttributes, links },
          parent,
        );
        context.with(trace.setSpan(parent, span), dispatch);
      } else {
        dispatch();
      }

      return (outcome) => {
        instruments.requests(-1);
        const seconds = (performance.now() - started) / 1000;
        const failure = failureOf(method, outcome);
        if ('result' in outcome) {
          if (!KNOWN_METHODS.has(method)) methods.learn(method);
          if (target.tool !== undefined) tools.learn(target.tool);
          if (target.prompt !== undefined) prompts.learn(target.prompt);
          if (method === 'initialize' && request.session !== undefined) {
            const agreed = protocolVersionOf(
              (outcome.result as { protocolVersion?: unknown })?.protocolVersion,
            );
            if (agreed !== undefined) {
              negotiated.set(request.session, agreed);
              versions.learn(agreed);
              version = versions.of(agreed);
            }
          }
        }
        // The same method, target, version, transport and failure measure into the same attribute set,
        // made once (the SDK still hashes it on every record: see bench/PROFILE.md).
        const name = names.of(method, target);
        const uri = options.resourceUriInMetrics ? target.uri : undefined;
        // Keyed by the span name: unique for a proven target, the method's label otherwise (a URI, or a
        // name nobody proved, is measured afresh).
        const reusable =
          uri === undefined &&
          (target.tool === undefined || tools.has(target.tool)) &&
          (target.prompt === undefined || prompts.has(target.prompt));
        let set = reusable ? measuredSets.get(name) : undefined;
        if (set === undefined || !set.matches(http, version, failure)) {
          set = new MeasuredSet(
            http,
            version,
            failure,
            measured(method, target, uri, http, version, failure),
          );
          if (reusable) measuredSets.set(name, set);
        }
        instruments.operation(seconds, set.attributes);

        if (span === undefined) return;
        // A tool or prompt name proven by this very answer joins the span's name.
        if (name !== startName) span.updateName(name);
        if (version !== startVersion && version !== undefined) {
          span.setAttribute(OTEL_ATTRIBUTES.mcpProtocolVersion, version);
        }
        if (failure !== undefined) markFailed(span, failure);
        const asked = inputRequiredMethods(outcome);
        if (asked !== undefined) span.setAttribute(OTEL_ATTRIBUTES.pierInputRequired, asked);
        span.end();
      };
    },

    onNotification(notification: ObservedNotification) {
      if (tracer === undefined) return;
      const { method, params, headers, session } = notification;
      const attributes: Attributes = { [OTEL_ATTRIBUTES.mcpMethodName]: method };
      connection(attributes, headers !== undefined, session?.sessionId, versionOf(params, headers, session));
      const { parent, links } = parentOf(context.active(), params, headers);
      // The seam hands notifications over without a dispatch to wrap: the span marks their arrival.
      tracer.startSpan(methods.of(method), { kind: SpanKind.SERVER, attributes, links }, parent).end();
    },

    onClientRequest(request: ObservedClientRequest) {
      if (tracer === undefined) return undefined;
      const { method, session } = request;
      const attributes: Attributes = {
        [OTEL_ATTRIBUTES.mcpMethodName]: method,
        [OTEL_ATTRIBUTES.jsonrpcRequestId]: String(request.id),
      };
      const version = session === undefined ? undefined : negotiated.get(session);
      // A 2025 HTTP session has an id; a stdio connection has none.
      connection(
        attributes,
        session?.sessionId !== undefined,
        session?.sessionId,
        version === undefined ? undefined : versions.of(version),
      );
      // Started in the asking handler's context: a child of its tools/call span.
      const span = tracer.startSpan(methods.of(method), { kind: SpanKind.CLIENT, attributes });
      return (outcome) => {
        const failure = failureOf(method, outcome);
        if (failure !== undefined) markFailed(span, failure);
        span.end();
      };
    },

    onStream(stream: ObservedStream) {
      const attributes: Attributes = { [OTEL_ATTRIBUTES.pierStreamKind]: stream.kind };
      instruments.streams(1, attributes);
      return () => instruments.streams(-1, attributes);
    },

    onTaskStatus(change: ObservedTaskStatus) {
      const { taskId, status } = change;
      if (!TASK_STATUSES.has(status)) return;
      const known = tasks.get(taskId);
      // This process's own view first: what it counted the task as is what it takes off.
      const previous = known?.status ?? change.previous;
      if (known !== undefined) clearTimeout(known.expiry);
      if (previous !== undefined && TASK_STATUSES.has(previous)) {
        instruments.tasks(-1, { [OTEL_ATTRIBUTES.pierTaskStatus]: previous });
      }
      instruments.tasks(1, { [OTEL_ATTRIBUTES.pierTaskStatus]: status });
      // The store forgets the task at its TTL: so does the gauge.
      const entry = { status, expiry: undefined as unknown as NodeJS.Timeout };
      const expire = () => {
        if (tasks.get(taskId) !== entry) return;
        const left = change.expiresAt - Date.now();
        if (left > 0) {
          entry.expiry = setTimeout(expire, Math.min(left, MAX_TIMER_MS)).unref();
          return;
        }
        tasks.delete(taskId);
        instruments.tasks(-1, { [OTEL_ATTRIBUTES.pierTaskStatus]: status });
      };
      entry.expiry = setTimeout(expire, Math.min(Math.max(change.expiresAt - Date.now(), 0), MAX_TIMER_MS));
      entry.expiry.unref();
      tasks.set(taskId, entry);
    },

    health(evaluation) {
      for (const check of evaluation.checks) {
        for (const status of HEALTH_STATUSES) {
          instruments.health(check.status === status ? 1 : 0, {
            [OTEL_ATTRIBUTES.pierHealthCheckName]: check.name,
            [OTEL_ATTRIBUTES.pierHealthCheckStatus]: status,
          });
        }
      }
    },

    close() {
      for (const { expiry } of tasks.values()) clearTimeout(expiry);
      tasks.clear();
    },

    onSession(session: ObservedSession) {
      const started = performance.now();
      // A 2025 HTTP session has an id; a stdio connection has none.
      const http = session.sessionId !== undefined;
      const transport: Attributes = {};
      connection(transport, http, undefined, undefined);
      instruments.sessions(1, transport);
      return () => {
        instruments.sessions(-1, transport);
        const attributes: Attributes = {};
        const version = negotiated.get(session);
        connection(attributes, http, undefined, version === undefined ? undefined : versions.of(version));
        instruments.session((performance.now() - started) / 1000, attributes);
      };
    },
  };
}

function createInstruments(
  options: NormalizedOptions,
  registry: PrometheusRegistry | undefined,
): Instruments {
  let operation: Histogram | undefined;
  let session: Histogram | undefined;
  let sessions: UpDownCounter | undefined;
  // Requests in flight are counted in a plain number the SDK reads at collection (an observable
  // up-down counter): two synchronous SDK measurements a request, each hashing its attributes, cost more.
  let inFlight = 0;
  let streams: UpDownCounter | undefined;
  let tasks: UpDownCounter | undefined;
  let health: Gauge | undefined;
  if (options.metrics) {
    const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, SCOPE_VERSION);
    const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS] };
    operation = meter.createHistogram(OTEL_METRICS.operationDuration.name, {
      ...OTEL_METRICS.operationDuration,
      advice,
    });
    session = meter.createHistogram(OTEL_METRICS.sessionDuration.name, {
      ...OTEL_METRICS.sessionDuration,
      advice,
    });
    sessions = meter.createUpDownCounter(OTEL_METRICS.activeSessions.name, OTEL_METRICS.activeSessions);
    meter
      .createObservableUpDownCounter(OTEL_METRICS.activeRequests.name, OTEL_METRICS.activeRequests)
      .addCallback((result) => result.observe(inFlight));
    streams = meter.createUpDownCounter(OTEL_METRICS.activeStreams.name, OTEL_METRICS.activeStreams);
    tasks = meter.createUpDownCounter(OTEL_METRICS.tasks.name, OTEL_METRICS.tasks);
    health = meter.createGauge(OTEL_METRICS.healthCheckStatus.name, OTEL_METRICS.healthCheckStatus);
  }
  const prom = registry && {
    operation: registry.histogram(
      OTEL_METRICS.operationDuration.name,
      OTEL_METRICS.operationDuration.unit,
      OTEL_METRICS.operationDuration.description,
      DURATION_BUCKETS,
    ),
    session: registry.histogram(
      OTEL_METRICS.sessionDuration.name,
      OTEL_METRICS.sessionDuration.unit,
      OTEL_METRICS.sessionDuration.description,
      DURATION_BUCKETS,
    ),
    sessions: registry.gauge(
      OTEL_METRICS.activeSessions.name,
      OTEL_METRICS.activeSessions.unit,
      OTEL_METRICS.activeSessions.description,
    ),
    requests: registry.gauge(
      OTEL_METRICS.activeRequests.name,
      OTEL_METRICS.activeRequests.unit,
      OTEL_METRICS.activeRequests.description,
    ),
    streams: registry.gauge(
      OTEL_METRICS.activeStreams.name,
      OTEL_METRICS.activeStreams.unit,
      OTEL_METRICS.activeStreams.description,
    ),
    tasks: registry.gauge(OTEL_METRICS.tasks.name, OTEL_METRICS.tasks.unit, OTEL_METRICS.tasks.description),
    health: registry.settable(
      OTEL_METRICS.healthCheckStatus.name,
      OTEL_METRICS.healthCheckStatus.unit,
      OTEL_METRICS.healthCheckStatus.description,
    ),
  };
  const none: Attributes = {};
  return {
    operation(seconds, attributes) {
      operation?.record(seconds, attributes);
      prom?.operation(seconds, attributes);
    },
    session(seconds, attributes) {
      session?.record(seconds, attributes);
      prom?.session(seconds, attributes);
    },
    sessions(delta, attributes) {
      sessions?.add(delta, attributes);
      prom?.sessions(delta, attributes);
    },
    requests(delta) {
      inFlight += delta;
      prom?.requests(delta, none);
    },
    streams(delta, attributes) {
      streams?.add(delta, attributes);
      prom?.streams(delta, attributes);
    },
    tasks(delta, attributes) {
      tasks?.add(delta, attributes);
      prom?.tasks(delta, attributes);
    },
    health(value, attributes) {
      health?.record(value, attributes);
      prom?.health(value, attributes);
    },
  };
}

interface Target {
  readonly tool?: string;
  readonly prompt?: string;
  readonly uri?: string;
}

const NO_TARGET: Target = {};

function targetOf(method: string, params: Readonly<Record<string, unknown>> | undefined): Target {
  const name = params?.name;
  if (method === 'tools/call' && typeof name === 'string') return { tool: name };
  if (method === 'prompts/get' && typeof name === 'string') return { prompt: name };
  const uri = params?.uri;
  if (
    typeof uri === 'string' &&
    (method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe')
  ) {
    return { uri };
  }
  return NO_TARGET;
}

/**
 * Span names: `{mcp.method.name} {target}` with a proven tool or prompt name, else the (bounded) method
 * alone. A target's name is built once: the names are bounded by the vocabularies.
 */
class SpanNames {
  readonly #toolNames = new Map<string, string>();
  readonly #promptNames = new Map<string, string>();

  constructor(
    private readonly methods: Vocabulary,
    private readonly tools: Vocabulary,
    private readonly prompts: Vocabulary,
  ) {}

  of(method: string, target: Target): string {
    const { tool, prompt } = target;
    if (tool !== undefined && this.tools.has(tool)) return named(this.#toolNames, method, tool);
    if (prompt !== undefined && this.prompts.has(prompt)) return named(this.#promptNames, method, prompt);
    return this.methods.of(method);
  }
}

/** `${method} ${name}` from `cache` (one method per cache: tools/call, prompts/get). */
function named(cache: Map<string, string>, method: string, name: string): string {
  let full = cache.get(name);
  if (full === undefined) {
    full = `${method} ${name}`;
    cache.set(name, full);
  }
  return full;
}

/** One set of metric attributes, with what it was made for: reused while a call's match. */
class MeasuredSet {
  constructor(
    readonly http: boolean,
    readonly version: string | undefined,
    readonly failure: Failure | undefined,
    readonly attributes: Attributes,
  ) {}

  matches(http: boolean, version: string | undefined, failure: Failure | undefined): boolean {
    if (http !== this.http || version !== this.version) return false;
    if (failure === undefined || this.failure === undefined) return failure === this.failure;
    return failure.type === this.failure.type && failure.code === this.failure.code;
  }
}

/** Adds the transport, session and protocol version attributes to `attributes`. */
function connection(
  attributes: Attributes,
  http: boolean,
  sessionId: string | undefined,
  version: string | undefined,
): void {
  attributes[OTEL_ATTRIBUTES.networkTransport] = http ? 'tcp' : 'pipe';
  if (http) attributes[OTEL_ATTRIBUTES.networkProtocolName] = 'http';
  if (sessionId !== undefined) attributes[OTEL_ATTRIBUTES.mcpSessionId] = sessionId;
  if (version !== undefined) attributes[OTEL_ATTRIBUTES.mcpProtocolVersion] = version;
}

/**
 * The caller's context: `params._meta` (SEP-414) first, else an ambient span (HTTP instrumentation), else the
 * HTTP `traceparent` header. The contexts not chosen are linked.
 */
function parentOf(
  active: Context,
  params: Readonly<Record<string, unknown>> | undefined,
  headers: Headers | undefined,
): { parent: Context; links: Link[] } {
  const ambient = trace.getSpanContext(active);
  const meta = params?._meta as Meta | undefined;
  const fromMeta = typeof meta?.traceparent === 'string';
  const fromHeader = headers?.has('traceparent') === true;
  let parent = active;
  if (fromMeta) parent = propagation.extract(active, meta, metaGetter);
  else if (ambient === undefined && fromHeader) parent = propagation.extract(active, headers, headersGetter);
  const links: Link[] = [];
  if (!fromMeta) return { parent, links };
  const chosen = trace.getSpanContext(parent)?.spanId;
  if (ambient !== undefined && ambient.spanId !== chosen) links.push({ context: ambient });
  if (fromHeader && headers !== undefined) {
    const header = trace.getSpanContext(propagation.extract(context.active(), headers, headersGetter));
    if (header !== undefined && header.spanId !== chosen && header.spanId !== ambient?.spanId) {
      links.push({ context: header });
    }
  }
  return { parent, links };
}

interface Failure {
  readonly type: string;
  readonly code: string | undefined;
  readonly message: string | undefined;
}

function failureOf(method: string, outcome: ObservedOutcome): Failure | undefined {
  if ('error' in outcome) {
    const code = String(outcome.error.code);
    // -32602 messages may quote what the client sent (argument values): never copied to the span.
    const message = outcome.error.code === -32602 ? 'Invalid params' : outcome.error.message;
    return { type: code, code, message };
  }
  if (method === 'tools/call' && (outcome.result as { isError?: unknown } | null)?.isError === true) {
    // The tool's own error text may hold argument values: the status carries the class only.
    return { type: TOOL_ERROR, code: undefined, message: undefined };
  }
  return undefined;
}

/** The listed arguments of a tool call, as JSON, when the user opted in for this tool. */
function recordedArguments(
  names: readonly string[] | undefined,
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  if (names === undefined) return undefined;
  const args = params?.arguments;
  if (typeof args !== 'object' || args === null) return undefined;
  const picked: Record<string, unknown> = {};
  for (const name of names) {
    if (Object.hasOwn(args, name)) picked[name] = (args as Record<string, unknown>)[name];
  }
  try {
    return JSON.stringify(picked);
  } catch {
    return OTHER;
  }
}

/** The methods of the questions a 2026-07-28 `input_required` answer asks, if it is one. */
function inputRequiredMethods(outcome: ObservedOutcome): string[] | undefined {
  if (!('result' in outcome)) return undefined;
  const requests = (outcome.result as { inputRequests?: unknown } | null)?.inputRequests;
  if (typeof requests !== 'object' || requests === null) return undefined;
  const asked: string[] = [];
  for (const question of Object.values(requests)) {
    const method = (question as { method?: unknown } | null)?.method;
    if (typeof method === 'string' && KNOWN_METHODS.has(method)) asked.push(method);
  }
  return asked;
}

/** Marks a span failed: the error type, the JSON-RPC code when there is one, and ERROR status. */
function markFailed(span: Span, failure: Failure): void {
  span.setAttribute(OTEL_ATTRIBUTES.errorType, failure.type);
  if (failure.code !== undefined) span.setAttribute(OTEL_ATTRIBUTES.rpcResponseStatusCode, failure.code);
  span.setStatus(
    failure.message === undefined
      ? { code: SpanStatusCode.ERROR }
      : { code: SpanStatusCode.ERROR, message: failure.message },
  );
}
