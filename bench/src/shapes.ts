// Issue 31's matrix: tool shapes × paths. Each shape is a tools/call on a Pier server with one feature
// declared; each path is how a client reaches it: 2026-07-28 stateless, 2025 stateless, or a 2025 session.
// The full run measures every cell side by side with Pier's own echo and the hand-written server on the
// same path (targets.ts judges them), and checks each answer once (the log message and progress of the
// `ctx` shape included).
import type { AnswerCheck } from './harness/measure.js';
import type { ServerId } from './harness/servers.js';
import { type CallShape, ECHO_CALL, ECHO_TEXT, type Era, echoedText } from './load/requests.js';

export type PathId = 'modern' | 'legacy' | 'sessions';

export interface ShapePath {
  readonly id: PathId;
  readonly label: string;
  readonly era: Extract<Era, 'modern' | 'legacy'>;
  /** Served by the shape's sessionful server (a session per connection). */
  readonly sessions: boolean;
}

export const PATHS: readonly ShapePath[] = [
  { id: 'modern', label: '2026-07-28 stateless', era: 'modern', sessions: false },
  { id: 'legacy', label: '2025 stateless', era: 'legacy', sessions: false },
  { id: 'sessions', label: '2025 sessions', era: 'legacy', sessions: true },
];

export type ShapeId =
  | 'echo'
  | 'ctx'
  | 'output'
  | 'scopes'
  | 'tasks'
  | 'otel'
  | 'otel-sdk'
  | 'middleware'
  | 'notes';

export interface Shape {
  readonly id: ShapeId;
  readonly label: string;
  /** The same, short enough for a chart's bar label. */
  readonly short: string;
  /** The stateless server (2026-07-28 and 2025 stateless paths) and the sessionful one (2025 sessions). */
  readonly stateless: ServerId;
  readonly sessionful: ServerId;
  readonly call: CallShape;
  /** How its answer is checked (default: the echoed text). */
  readonly expect?: AnswerCheck;
  /** Held to the shapes' targets (≥ 0.5× hand-written, ≥ 0.8× Pier's echo); otherwise reported. */
  readonly judged: boolean;
}

/** The `ctx` shape's answer: a log message and a progress notification before the echo. */
const ctxAnswer: AnswerCheck = (response, messages) => {
  const methods = messages.map((message) => (message as { method?: unknown }).method);
  if (!methods.includes('notifications/message')) return 'no log message (notifications/message)';
  if (!methods.includes('notifications/progress')) return 'no progress notification';
  const echoed = echoedText(response);
  return echoed === ECHO_TEXT ? undefined : `echoed ${JSON.stringify(echoed)}`;
};

/** The output-schema shape's answer: structured content matching the schema. */
const structuredAnswer: AnswerCheck = (response) => {
  const result = (response as { result?: { structuredContent?: { text?: unknown } } }).result;
  return result?.structuredContent?.text === ECHO_TEXT
    ? undefined
    : 'no structured content { text: "hello" }';
};

/** `list_notes`'s answer: the three notes the bench's seed added. */
const notesAnswer: AnswerCheck = (response) => {
  const result = (response as { result?: { structuredContent?: { notes?: unknown[] }; isError?: boolean } })
    .result;
  const notes = result?.structuredContent?.notes;
  return Array.isArray(notes) && notes.length === 3 && result?.isError !== true
    ? undefined
    : 'list_notes did not list the three seeded notes';
};

export const SHAPES: readonly Shape[] = [
  {
    id: 'echo',
    label: 'echo, handler takes only its arguments',
    short: 'echo',
    stateless: 'pier',
    sessionful: 'pier-sessions',
    call: ECHO_CALL,
    judged: true,
  },
  {
    id: 'ctx',
    label: 'handler uses `ctx`: a log message and progress, the client asking for both',
    short: 'ctx: log + progress',
    stateless: 'pier',
    sessionful: 'pier-sessions',
    call: { tool: 'echo_ctx', progress: true, logLevel: 'info' },
    expect: ctxAnswer,
    judged: true,
  },
  {
    id: 'output',
    label: 'an output schema',
    short: 'output schema',
    stateless: 'pier',
    sessionful: 'pier-sessions',
    call: { tool: 'echo_structured' },
    expect: structuredAnswer,
    judged: true,
  },
  {
    id: 'scopes',
    label: '`scopes` under `authPlugin` + `jwt()`, token cache warm',
    short: 'scopes under jwt()',
    stateless: 'pier-auth',
    sessionful: 'pier-auth-sessions',
    call: { tool: 'echo_scoped' },
    judged: true,
  },
  {
    id: 'tasks',
    label: 'echo on a server that also declares a task tool and skills',
    short: '+ a task tool and skills',
    stateless: 'pier-tasks',
    sessionful: 'pier-tasks-sessions',
    call: ECHO_CALL,
    judged: true,
  },
  {
    id: 'otel',
    label: 'echo, `@pier/plugin-otel` on, no OpenTelemetry SDK',
    short: 'plugin-otel, no OTel SDK',
    stateless: 'pier-otel',
    sessionful: 'pier-otel-sessions',
    call: ECHO_CALL,
    judged: true,
  },
  {
    id: 'otel-sdk',
    label: 'echo, `@pier/plugin-otel` on, SDK with no-op exporters',
    short: 'plugin-otel + OTel SDK',
    stateless: 'pier-otel-sdk',
    sessionful: 'pier-otel-sdk-sessions',
    call: ECHO_CALL,
    judged: true,
  },
  {
    id: 'middleware',
    label: 'echo behind three no-op middlewares',
    short: 'three no-op middlewares',
    stateless: 'pier-mw',
    sessionful: 'pier-mw-sessions',
    call: ECHO_CALL,
    // Held to its own target: ≤ 5 % of a call (targets.ts).
    judged: false,
  },
  {
    id: 'notes',
    label: 'the example app’s `list_notes` (three notes)',
    short: 'example app: list_notes',
    stateless: 'notes',
    sessionful: 'notes-sessions',
    call: { tool: 'list_notes', arguments: {} },
    expect: notesAnswer,
    judged: false,
  },
];

/** The server a shape is measured on for a path. */
export function serverOf(shape: Shape, path: ShapePath): ServerId {
  return path.sessions ? shape.sessionful : shape.stateless;
}

/**
 * The key of a shape's samples on a path: `server era`, as every echo measurement is keyed, or
 * `server era tool` for another tool.
 */
export function shapeKey(shape: Shape, path: ShapePath): string {
  const key = `${serverOf(shape, path)} ${path.era}`;
  return shape.call.tool === 'echo' ? key : `${key} ${shape.call.tool}`;
}

/** The hand-written server's key on a path (stateless: its 2025 figure stands for sessions too). */
export function handKey(path: ShapePath): string {
  return `hand ${path.era}`;
}
