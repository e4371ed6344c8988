// Input-required requests (2026-07-28, "multi round-trip requests"): a handler written once with
// `await ctx.elicit(…)`, `ctx.sample(…)`, `ctx.listRoots()` serves 2026 clients by answering the request
// with an `input_required` result, and is run again from the top when the client retries with the answers.
// Answers gathered in earlier rounds travel in the signed `requestState`, so any replica holding the key
// can serve the next round.
import type { ClientCapabilities, InputRequest, InputRequiredResult } from '@modelcontextprotocol/server';
import {
  fromJsonSchema,
  inputRequired,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { nextTurn, sha256 } from '../engine/runtime.js';
import { isJsonObject, isThenable } from '../engine/wire.js';
import { MissingClientCapabilityError } from '../errors.js';

/** What a round reads of the request it serves. */
export interface RoundRequest {
  /** The payload of the request's `requestState`, verified; `undefined` on a first round. */
  readonly verifiedState: unknown;
  /** The bare answers of the request's `inputResponses`, by key. */
  readonly inputResponses: Readonly<Record<string, unknown>>;
  /** What the request's envelope declares. */
  readonly clientCapabilities: ClientCapabilities | undefined;
}

/** What Pier keeps in a `requestState` (signed with the server's key, readable by the client: no secrets). */
export interface RoundState {
  /** Format version. */
  readonly v: 1;
  /** Answers gathered so far, by input key. */
  readonly a: Readonly<Record<string, unknown>>;
  /** The request the state belongs to: method, target, arguments and principal, hashed. */
  readonly t: string;
  /** Rounds completed so far. */
  readonly r: number;
}

/** How many rounds one request may take before Pier gives up (the SDK's legacy shim allows as many). */
export const DEFAULT_MAX_ROUNDS = 8;

/** The kinds of input a handler can ask the client for. */
export type InputKind = 'elicit' | 'sample' | 'listRoots';

/**
 * Thrown into a handler's pending asks once Pier has answered the request with `input_required`: the
 * handler will run again when the client answers. A handler that catches everything should re-throw it.
 */
export class InputPendingSignal extends Error {
  override readonly name = 'InputPendingSignal';
  constructor() {
    super('input pending: the client was asked, and the handler runs again with its answers');
  }
}

/** One run of a handler on a 2026-07-28 request: the answers it can use and the questions it asked. */
export class InputRound {
  /** Answers from earlier rounds (the verified state) and from this request's `inputResponses`. */
  readonly #known: Readonly<Record<string, unknown>>;
  readonly #fresh: Readonly<Record<string, unknown>>;
  /** Answers the handler used this run: carried into the next round's state. */
  readonly used: Record<string, unknown> = {};
  readonly pending = new Map<string, InputRequest>();
  readonly #rejects: ((error: Error) => void)[] = [];
  readonly #counters = new Map<InputKind | 'once', number>();
  /** Called once the handler has asked something it has no answer for, and every ask of that moment is in. */
  #onStall: (() => void)[] | undefined;
  #isStalled = false;
  #stalled: Promise<void> | undefined;
  readonly #capabilities: ClientCapabilities;
  /**
   * In a task tool's run (extensions/tasks.ts): `call` while it still runs on the `tools/call` request, `task` once it
   * runs as a task. Asks made as a task, or without `beforeTask`, are {@link taskAsks}.
   */
  phase: 'call' | 'task' | undefined;
  readonly taskAsks = new Set<string>();

  /** `source` is the request (its `inputResponses` and declared capabilities), or a task's run. */
  constructor(
    known: Readonly<Record<string, unknown>>,
    source: {
      readonly inputResponses: Readonly<Record<string, unknown>>;
      readonly clientCapabilities: ClientCapabilities | undefined;
    },
  ) {
    this.#known = known;
    this.#fresh = source.inputResponses;
    this.#capabilities = source.clientCapabilities ?? {};
  }

  /** Resolves once the handler is stalled on questions (see {@link whenStalled}); made on first use. */
  get stalled(): Promise<void> {
    this.#stalled ??= new Promise((resolve) => this.whenStalled(resolve));
    return this.#stalled;
  }

  /** Calls `listener` once the handler has asked something it has no answer for (at once if it has). */
  whenStalled(listener: () => void): void {
    if (this.#isStalled) {
      listener();
      return;
    }
    this.#onStall ??= [];
    this.#onStall.push(listener);
  }

  /** The key of the next ask of `kind` when the handler gives none: `elicit-0`, `sample-1`… by kind. */
  nextKey(kind: InputKind | 'once'): string {
    const n = this.#counters.get(kind) ?? 0;
    this.#counters.set(kind, n + 1);
    return `${kind}-${n}`;
  }

  /** An answer given earlier or now for `key` that passes `accept`, or `undefined`. */
  answer(key: string, accept: (value: unknown) => boolean): unknown {
    for (const source of [this.#known, this.#fresh]) {
      if (!Object.hasOwn(source, key)) continue;
      const value = source[key];
      if (accept(value)) {
        this.used[key] = value;
        return value;
      }
    }
    return undefined;
  }

  /** A value remembered by `ctx.once(key)` in an earlier round. */
  remembered(key: string): { readonly value: unknown } | undefined {
    return Object.hasOwn(this.#known, key) ? { value: this.#known[key] } : undefined;
  }

  remember(key: string, value: unknown): void {
    this.used[key] = value;
  }

  /** Records a question and returns a promise that settles only if the round is abandoned. */
  ask(key: string, request: InputRequest, asker: string, beforeTask = false): Promise<never> {
    const missing = missingCapability(request, this.#capabilities);
    if (missing !== undefined) {
      const error = new MissingClientCapabilityError(
        missing,
        `${asker}: the client did not declare the ${capabilityName(missing)} capability`,
      );
      refusedAsks.set(error, { key, request });
      return Promise.reject(error);
    }
    this.pending.set(key, request);
    if (this.phase === 'task' || (this.phase === 'call' && !beforeTask)) this.taskAsks.add(key);
    // Asks made together (`Promise.all`) arrive in the same turn of the event loop: answer once they are in.
    if (this.pending.size === 1) {
      nextTurn(() => {
        this.#isStalled = true;
        for (const listener of this.#onStall?.splice(0) ?? []) listener();
      });
    }
    return new Promise<never>((_, reject) => this.#rejects.push(reject));
  }

  /** Ends every pending ask with an {@link InputPendingSignal}, so the handler's `finally` blocks run. */
  abandon(): void {
    const signal = new InputPendingSignal();
    for (const reject of this.#rejects.splice(0)) reject(signal);
  }
}

/**
 * Runs `handler` for one round of a 2026-07-28 request. Answers with the handler's own result (at once when
 * the handler answered at once), or with an `input_required` result carrying every question the handler
 * asked and the state for the next round; what the handler throws is refused as `failure` maps it. A state
 * minted for another request, principal, or past `maxRounds` is refused like a forged one.
 */
export function runRound<T>(
  request: RoundRequest,
  target: Target,
  codec: RoundCodec,
  maxRounds: number,
  handler: (round: InputRound) => T | Promise<T>,
  failure: (error: unknown) => unknown,
): T | InputRequiredResult | Promise<T | InputRequiredResult> {
  // A first round has no state to check: the handler starts in this turn (no promise waited for first).
  if (request.verifiedState === undefined) return round(request, undefined, target, codec, handler, failure);
  return verifiedState(request, target, maxRounds).then((state) =>
    round(request, state, target, codec, handler, failure),
  );
}

/**
 * One round: the handler's result (or what it threw, as `failure` maps it), or, once it asks something, the
 * `input_required` result. A handler that answers at once is answered at once (no promise); otherwise one
 * promise, settled by whichever comes first: the handler's end or its questions.
 */
function round<T>(
  request: RoundRequest,
  state: RoundState | undefined,
  target: Target,
  codec: RoundCodec,
  handler: (round: InputRound) => T | Promise<T>,
  failure: (error: unknown) => unknown,
): T | InputRequiredResult | Promise<T | InputRequiredResult> {
  const round = new InputRound(state?.a ?? {}, request);
  let returned: T | Promise<T>;
  try {
    returned = handler(round);
  } catch (error) {
    if (round.pending.size > 0) return asked(round, state, target, codec);
    return Promise.reject(failure(error));
  }
  if (!isThenable(returned)) {
    return round.pending.size > 0 ? asked(round, state, target, codec) : (returned as T);
  }
  const running = Promise.resolve(returned);
  return new Promise<T | InputRequiredResult>((resolve, reject) => {
    let settled = false;
    const ask = () => {
      if (settled) return;
      settled = true;
      resolve(asked(round, state, target, codec));
    };
    round.whenStalled(ask);
    running.then(
      (value) => {
        if (settled) return;
        if (round.pending.size > 0) return ask();
        settled = true;
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        if (round.pending.size > 0) return ask();
        settled = true;
        reject(failure(error));
      },
    );
  });
}

/** The round ends on its questions: pending asks are abandoned, and the client is asked them. */
function asked(
  round: InputRound,
  state: RoundState | undefined,
  target: Target,
  codec: RoundCodec,
): Promise<InputRequiredResult> {
  round.abandon();
  return nextRound(round, state, target, codec);
}

/**
 * The request's verified state when it belongs to `target` (see {@link runRound}); `undefined` on a first
 * round. A state of another request, or past `maxRounds`, is refused like a forged one.
 */
export async function verifiedState(
  request: RoundRequest,
  target: Target,
  maxRounds: number,
): Promise<RoundState | undefined> {
  const state = request.verifiedState;
  if (state === undefined) return undefined;
  if (!isRoundState(state, await target())) throw invalidState();
  if (state.r >= maxRounds) {
    throw protocolAnswer(
      new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `The request took more than ${maxRounds} input rounds`,
      ),
    );
  }
  return state;
}

/** The `input_required` result asking `round`'s pending questions, with the state for the next round. */
export async function nextRound(
  round: InputRound,
  state: RoundState | undefined,
  target: Target,
  codec: RoundCodec,
): Promise<InputRequiredResult> {
  const next: RoundState = {
    v: 1,
    a: Object.assign({}, state?.a, round.used),
    t: await target(),
    r: (state?.r ?? 0) + 1,
  };
  return inputRequired({
    inputRequests: Object.fromEntries(round.pending),
    requestState: await codec.mint(next),
  });
}

/** What {@link runRound} needs of the request-state codec: signing, bound to the request being served. */
export interface RoundCodec {
  mint(state: RoundState): Promise<string>;
}

/** The request a state belongs to, computed only when a state is minted or checked. */
export type Target = () => Promise<string>;

/**
 * Identifies the request a state belongs to: the method, what it names (tool, prompt, URI), its
 * arguments (key order ignored) and the principal, hashed so the state does not repeat the arguments.
 * The arguments are read now, before the handler could change them; the hash is taken only when a state
 * is minted or checked, so a call that asks nothing and carries no state never pays for it.
 */
export function requestTarget(method: string, name: string, args: unknown, principal: () => string): Target {
  const subject = `${method}\0${name}\0${canonicalJson(args)}`;
  let target: Promise<string> | undefined;
  return () => {
    target ??= sha256(`${subject}\0${principal()}`);
    return target;
  };
}

/** The capability `request` needs that `capabilities` lacks, as the spec's `requiredCapabilities` names it. */
export function missingCapability(
  request: InputRequest,
  capabilities: ClientCapabilities,
): Readonly<Record<string, object>> | undefined {
  switch (request.method) {
    case 'sampling/createMessage':
      return capabilities.sampling === undefined ? { sampling: {} } : undefined;
    case 'roots/list':
      return capabilities.roots === undefined ? { roots: {} } : undefined;
    case 'elicitation/create': {
      const elicitation = capabilities.elicitation as { form?: object; url?: object } | undefined;
      if (elicitation === undefined) return { elicitation: {} };
      const url = (request.params as { mode?: unknown }).mode === 'url';
      if (url && elicitation.url === undefined) return { elicitation: { url: {} } };
      // An empty `elicitation: {}` means form mode (the 2025-06-18 meaning, kept by later revisions).
      if (!url && elicitation.form === undefined && elicitation.url !== undefined) {
        return { elicitation: { form: {} } };
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** How an error message names a missing capability: `sampling`, `elicitation (URL mode)`… */
export function capabilityName(missing: Readonly<Record<string, object>>): string {
  if (missing.elicitation !== undefined && 'url' in missing.elicitation) return 'elicitation (URL mode)';
  return Object.keys(missing).join(', ');
}

/** The wire error for a state that fails verification, the same the SDK gives for a forged one. */
export function invalidState(): ProtocolError {
  return protocolAnswer(
    new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
      reason: 'invalid_request_state',
    }),
  );
}

/** The question behind a missing-capability error raised by {@link InputRound.ask}. */
const refusedAsks = new WeakMap<MissingClientCapabilityError, { key: string; request: InputRequest }>();

/**
 * A handler's uncaught missing-capability error on a 2026-07-28 request, as the protocol's `-32021` naming
 * the question the client cannot answer (HTTP 400): what a tool cannot say by throwing, since whatever a
 * tool throws is its error result. `undefined` for an error Pier did not raise.
 */
export function refusedQuestion(
  error: MissingClientCapabilityError,
): MissingRequiredClientCapabilityError | undefined {
  const asked = refusedAsks.get(error);
  if (asked === undefined) return undefined;
  return protocolAnswer(
    new MissingRequiredClientCapabilityError(
      { requiredCapabilities: error.requiredCapabilities } as never,
      `Cannot request input '${asked.key}' (${asked.request.method}): the request's client capabilities do not declare the required capability`,
    ),
  );
}

/**
 * Errors Pier itself answers a request with (a forged state, a missing capability): a tool returns them
 * as JSON-RPC errors, not as tool errors, unlike whatever a handler throws.
 */
const answers = new WeakSet<Error>();
export function protocolAnswer<E extends Error>(error: E): E {
  answers.add(error);
  return error;
}

/** Whether `error` is one of Pier's protocol answers (see `protocolAnswer`). */
export function isProtocolAnswer(error: unknown): boolean {
  return error instanceof Error && answers.has(error);
}

/** Whether `value` is a valid elicitation answer to `request` (content checked against its schema). */
export function isElicitAnswer(value: unknown, requestedSchema: unknown): boolean {
  if (!isJsonObject(value)) return false;
  const { action, content } = value;
  if (action === 'decline' || action === 'cancel') return true;
  if (action !== 'accept') return false;
  if (requestedSchema === undefined) return content === undefined || isJsonObject(content);
  if (!isJsonObject(content)) return false;
  const result = schemaOf(requestedSchema)['~standard'].validate(content);
  return !(result instanceof Promise) && result.issues === undefined;
}

/** Whether `value` is a sampling answer (`role`, `content`, `model`). */
export function isSamplingAnswer(value: unknown): boolean {
  return (
    isJsonObject(value) &&
    typeof value.role === 'string' &&
    typeof value.model === 'string' &&
    'content' in value
  );
}

/** Whether `value` is a `roots/list` answer. */
export function isRootsAnswer(value: unknown): boolean {
  return (
    isJsonObject(value) &&
    Array.isArray(value.roots) &&
    value.roots.every((root) => isJsonObject(root) && typeof root.uri === 'string')
  );
}

const schemas = new WeakMap<object, ReturnType<typeof fromJsonSchema>>();
function schemaOf(schema: unknown): ReturnType<typeof fromJsonSchema> {
  const key = schema as object;
  let compiled = schemas.get(key);
  if (compiled === undefined) {
    compiled = fromJsonSchema(schema as Parameters<typeof fromJsonSchema>[0]);
    schemas.set(key, compiled);
  }
  return compiled;
}

function isRoundState(value: unknown, target: string): value is RoundState {
  return (
    isJsonObject(value) &&
    value.v === 1 &&
    value.t === target &&
    isJsonObject(value.a) &&
    typeof value.r === 'number' &&
    Number.isInteger(value.r) &&
    value.r >= 0
  );
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
