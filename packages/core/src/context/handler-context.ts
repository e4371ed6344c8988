// What handlers receive as their last argument: one small object per request, whose methods read the
// engine's `Call`, so that a handler that touches nothing pays for nothing. Asking the client (elicit,
// sample, listRoots) takes one of two roads: a 2026-07-28 request is answered `input_required` and re-run
// (input-required.ts); a 2025 connection gets a real request on the stream of the call that asks.
import type { AuthInfo, InputRequest, ListRootsResult, LoggingLevel } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Call } from '../engine/call.js';
import { randomId } from '../engine/runtime.js';
import { MissingClientCapabilityError, PierError } from '../errors.js';
import type { Logger } from '../logger.js';
import {
  capabilityName,
  type InputKind,
  type InputRound,
  isElicitAnswer,
  isRootsAnswer,
  isSamplingAnswer,
  missingCapability,
} from './input-required.js';
import type {
  ClientCapability,
  ClientRequestOptions,
  ContextOverrides,
  ElicitationRequest,
  ElicitationResult,
  ProgressOptions,
  PromptContext,
  RequestContext,
  ResourceContext,
  ResourceNotifier,
  SamplingRequest,
  SamplingResult,
  ToolContext,
} from './types.js';

const NO_VARIABLES: Readonly<Record<string, string>> = Object.freeze({});

/** The context of one handler run: a tool's, a resource's or a prompt's (they differ in what they read). */
export class HandlerContext implements ToolContext, ResourceContext, PromptContext {
  readonly logger: Logger;
  readonly variables: Readonly<Record<string, string | string[]>>;
  readonly #call: Call;
  readonly #round: InputRound | undefined;
  readonly #notifier: ResourceNotifier;
  readonly #overrides: ContextOverrides | undefined;

  constructor(
    call: Call,
    logger: Logger,
    notifier: ResourceNotifier,
    round?: InputRound,
    variables?: Readonly<Record<string, string | string[]>>,
    overrides?: ContextOverrides,
  ) {
    this.#call = call;
    this.logger = logger;
    this.#notifier = notifier;
    this.#round = round;
    this.variables = variables ?? NO_VARIABLES;
    this.#overrides = overrides;
  }

  get signal(): AbortSignal {
    return this.#overrides?.signal ?? this.#call.signal;
  }

  get requestId(): string | number {
    return this.#call.id;
  }

  get sessionId(): string | undefined {
    return this.#call.sessionId;
  }

  get auth(): AuthInfo | undefined {
    return this.#call.auth;
  }

  get era(): 'modern' | 'legacy' {
    return this.#call.era;
  }

  get protocolVersion(): string {
    return this.#call.protocolVersion;
  }

  get client(): RequestContext['client'] {
    return this.#call.client;
  }

  header(name: string): string | undefined {
    return this.#call.header(name);
  }

  notifyResourceUpdated(uri: string): Promise<void> {
    return this.#notifier.notify(uri);
  }

  clientSupports(capability: ClientCapability): boolean {
    const caps = this.#call.clientCapabilities;
    if (caps === undefined) return false;
    if (capability === 'elicitation.url') {
      return (caps.elicitation as { url?: object } | undefined)?.url !== undefined;
    }
    return caps[capability] !== undefined;
  }

  reportProgress(progress: number, options?: ProgressOptions): Promise<void> {
    if (this.#overrides !== undefined) return this.#overrides.reportProgress(progress, options);
    const progressToken = this.#call.progressToken;
    if (progressToken === undefined) return Promise.resolve();
    this.#call.notify('notifications/progress', {
      progressToken,
      progress,
      ...(options?.total !== undefined && { total: options.total }),
      ...(options?.message !== undefined && { message: options.message }),
    });
    return Promise.resolve();
  }

  sendLog(level: LoggingLevel, data: unknown): Promise<void> {
    if (this.#overrides !== undefined) return this.#overrides.sendLog(level, data);
    this.#call.log(level, data);
    return Promise.resolve();
  }

  closeStream(): boolean {
    if (this.#overrides !== undefined) return this.#overrides.closeStream();
    const close = this.#call.inbound.closeStream;
    if (close === undefined) return false;
    close();
    return true;
  }

  elicit(request: ElicitationRequest, options?: ClientRequestOptions): Promise<ElicitationResult> {
    const schema = (request as { requestedSchema?: unknown }).requestedSchema;
    const url = (request as { mode?: unknown }).mode === 'url';
    // As the SDK sends them: a form request names its mode; a URL one has an id (2025-11-25 wants one).
    const params: Record<string, unknown> = url
      ? Object.assign({}, request, {
          elicitationId: (request as { elicitationId?: string }).elicitationId ?? randomId(),
        })
      : (request as { mode?: unknown }).mode === 'form'
        ? { ...request }
        : Object.assign({}, request, { mode: 'form' });
    return this.#ask(
      'elicit',
      { method: 'elicitation/create', params: request } as InputRequest,
      (value) => isElicitAnswer(value, schema),
      options,
      'elicitation/create',
      params,
    ) as Promise<ElicitationResult>;
  }

  sample(request: SamplingRequest, options?: ClientRequestOptions): Promise<SamplingResult> {
    return this.#ask(
      'sample',
      { method: 'sampling/createMessage', params: request } as InputRequest,
      isSamplingAnswer,
      options,
      'sampling/createMessage',
      request as Record<string, unknown>,
    ) as Promise<SamplingResult>;
  }

  listRoots(options?: ClientRequestOptions): Promise<ListRootsResult> {
    return this.#ask(
      'listRoots',
      { method: 'roots/list', params: {} } as InputRequest,
      isRootsAnswer,
      options,
      'roots/list',
      undefined,
    ) as Promise<ListRootsResult>;
  }

  async once<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
    const round = this.#round;
    if (round === undefined) return fn();
    const name = `once:${key}`;
    const remembered = round.remembered(name);
    if (remembered !== undefined) {
      round.remember(name, remembered.value);
      return remembered.value as T;
    }
    const value = await fn();
    round.remember(name, value === undefined ? null : value);
    return value;
  }

  /**
   * Asks the client: from this round's answers or as a new question on 2026-07-28, as a real request on a
   * 2025 connection. `params` is what a 2025 client is sent.
   */
  #ask(
    kind: InputKind,
    request: InputRequest,
    accept: (value: unknown) => boolean,
    options: ClientRequestOptions | undefined,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    const asker = `ctx.${kind}`;
    const round = this.#round;
    if (round !== undefined) {
      const key = options?.key ?? round.nextKey(kind);
      const answer = round.answer(key, accept);
      return answer !== undefined
        ? Promise.resolve(answer)
        : round.ask(key, request, asker, options?.beforeTask === true);
    }
    const call = this.#call;
    if (call.era === 'modern') {
      return Promise.reject(
        new PierError(
          'CLIENT_REQUEST_UNAVAILABLE',
          `${asker}: input can be asked for only while serving tools/call, prompts/get or resources/read (this is ${call.method})`,
        ),
      );
    }
    const connection = call.connection;
    if (connection === undefined) {
      return Promise.reject(
        new PierError(
          'CLIENT_REQUEST_UNAVAILABLE',
          `${asker}: this HTTP server is stateless, so no session carries a request to the client (listen with sessions: true)`,
        ),
      );
    }
    const missing = missingCapability(request, connection.clientCapabilities ?? {});
    if (missing !== undefined) {
      return Promise.reject(
        new MissingClientCapabilityError(
          missing,
          `${asker}: the client did not declare the ${capabilityName(missing)} capability`,
        ),
      );
    }
    return connection
      .request(method, params, {
        // A question belongs to the call that asks: it goes on that call's stream (2025 streamable HTTP).
        via: call.canSend ? (message) => call.sendRelated(message) : undefined,
        signal: this.signal,
        timeoutMs: options?.timeoutMs,
      })
      .then((answer) => {
        if (!accept(answer)) {
          throw new ProtocolError(
            kind === 'elicit' ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
            kind === 'elicit'
              ? 'Elicitation response content does not match requested schema'
              : `Invalid ${method} result from the client`,
          );
        }
        return answer;
      });
  }
}
