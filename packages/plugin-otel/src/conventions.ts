// Names from OpenTelemetry's semantic conventions for MCP (open-telemetry/semantic-conventions-genai,
// docs/gen-ai/mcp.md, status Development), written out here rather than imported: the runtime depends on
// @opentelemetry/api only, and these keys are the contract users query by.

export const OTEL_ATTRIBUTES = {
  mcpMethodName: 'mcp.method.name',
  mcpSessionId: 'mcp.session.id',
  mcpProtocolVersion: 'mcp.protocol.version',
  mcpResourceUri: 'mcp.resource.uri',
  jsonrpcRequestId: 'jsonrpc.request.id',
  genAiToolName: 'gen_ai.tool.name',
  genAiPromptName: 'gen_ai.prompt.name',
  genAiOperationName: 'gen_ai.operation.name',
  genAiToolCallArguments: 'gen_ai.tool.call.arguments',
  errorType: 'error.type',
  rpcResponseStatusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
  /** Pier's own: the questions a 2026-07-28 `input_required` answer asks (their methods). */
  pierInputRequired: 'pier.mcp.input_required.methods',
  /** Pier's own: `listen` (2026-07-28 `subscriptions/listen`) or `session` (a 2025 session's GET stream). */
  pierStreamKind: 'pier.stream.kind',
  /** Pier's own: a task's status (`working`, `input_required`, `completed`, `failed`, `cancelled`). */
  pierTaskStatus: 'pier.task.status',
  /** Pier's own: a health check's name, as declared in `healthPlugin({ checks })`. */
  pierHealthCheckName: 'pier.health.check.name',
  /** Pier's own: a health status (`healthy`, `degraded`, `unhealthy`). */
  pierHealthCheckStatus: 'pier.health.check.status',
  /** Pier's own: the name of a limit (a rule of `limitsPlugin`). */
  pierLimitRule: 'pier.limit.rule',
  /** Pier's own: why a limit refused a request: `exceeded`, or `unavailable` (its store unreachable, failing closed). */
  pierLimitReason: 'pier.limit.reason',
  /** Pier's own: how a limit decided without its store: `open` (admitted) or `closed` (refused). */
  pierLimitFailureMode: 'pier.limit.failure_mode',
} as const;

/** Bucket boundaries (seconds) the conventions advise for both duration histograms. */
export const DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

export const OTEL_METRICS = {
  operationDuration: {
    name: 'mcp.server.operation.duration',
    unit: 's',
    description:
      'MCP request duration as observed on the receiver from the time it was received until the result or ack is sent.',
  },
  sessionDuration: {
    name: 'mcp.server.session.duration',
    unit: 's',
    description: 'The duration of the MCP session as observed on the MCP server.',
  },
  activeSessions: {
    name: 'pier.server.active_sessions',
    unit: '{session}',
    description: 'Open MCP sessions: stdio connections and 2025 HTTP sessions.',
  },
  activeRequests: {
    name: 'pier.server.active_requests',
    unit: '{request}',
    description: 'MCP requests received and not answered yet.',
  },
  activeStreams: {
    name: 'pier.server.active_streams',
    unit: '{stream}',
    description:
      'Open long-lived HTTP streams: 2026-07-28 subscriptions/listen streams and 2025 session GET streams.',
  },
  tasks: {
    name: 'pier.server.tasks',
    unit: '{task}',
    description: 'Tasks by status, as this process saved them, until the store forgets them (their TTL).',
  },
  limitRefusals: {
    name: 'pier.limit.refusals',
    unit: '{request}',
    description: 'Requests refused by a limit of limitsPlugin, by limit and reason.',
  },
  limitStoreErrors: {
    name: 'pier.limit.store.errors',
    unit: '{decision}',
    description:
      'Limits decided without their store (unreachable), by limit and failure mode: open (admitted) or closed (refused).',
  },
  limitStoreAvailable: {
    name: 'pier.limit.store.available',
    unit: '1',
    description: '1 while the limit store answers, 0 from its first failure until it answers again.',
  },
  healthCheckStatus: {
    name: 'pier.health.check.status',
    unit: '{status}',
    description: "1 for each health check's latest status, 0 for its other statuses.",
  },
} as const;

/** The values `pier.health.check.status` takes: one series per check and status, so that 0 is explicit. */
export const HEALTH_STATUSES = ['healthy', 'degraded', 'unhealthy'] as const;

/** Task statuses, for the `pier.server.tasks` gauge. */
export const TASK_STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** The value low-cardinality attributes fall back to (the conventions' well-known fallback). */
export const OTHER = '_OTHER';

/** `error.type` of a tool call that succeeded at the JSON-RPC level with `isError: true`. */
export const TOOL_ERROR = 'tool_error';

/** The methods the conventions list, plus the 2026-07-28 ones: always allowed as attribute values. */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'completion/complete',
  'elicitation/create',
  'initialize',
  'logging/setLevel',
  'notifications/cancelled',
  'notifications/initialized',
  'notifications/message',
  'notifications/progress',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/roots/list_changed',
  'notifications/tools/list_changed',
  'ping',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/read',
  'resources/subscribe',
  'resources/templates/list',
  'resources/unsubscribe',
  'roots/list',
  'sampling/createMessage',
  'tools/call',
  'tools/list',
  'server/discover',
  'subscriptions/listen',
]);

/** The `_meta` key a 2026-07-28 request carries its protocol version in. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
