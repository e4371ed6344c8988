// One request being served: what the transport said about it, what its era and envelope declare, and the
// ways back to the client (related messages, questions in a 2025 session). It is also what middleware
// sees (`MiddlewareContext`). Everything that costs something (an abort controller, a principal, response
// headers) is made only when first asked for.
import type { AuthInfo, ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { Catalog } from './catalog.js';
import type { Envelope, HeaderReader } from './classify.js';
import type { Connection, EngineConnection, MessageSink } from './connection.js';
import { type HeaderList, lowerCaseName, setHeaderIn } from './headers.js';
import type { MiddlewareContext, Target } from './middleware.js';
import { type JsonObject, type Message, metaOf, notificationMessage, type RequestId } from './wire.js';

/** What a transport tells the engine about one message it received. */
export interface Inbound {
  /** The era {@link classifyEra} decided (stdio: the connection's). */
  readonly era: 'modern' | 'legacy';
  /** The validated envelope of a 2026-07-28 request, as `classifyEra` returned it. */
  readonly envelope?: Envelope | undefined;
  /** The version a 2025-era request named (header or `initialize`), when it named one. */
  readonly requestedVersion?: string | undefined;
  /** HTTP request headers (lower-case names); absent off HTTP. */
  readonly headers?: HeaderReader | undefined;
  /** Every HTTP request header as a web `Headers`, made when asked (observers read them so). */
  readonly allHeaders?: (() => Headers) | undefined;
  /** Who is calling, when an authenticator ran. */
  readonly authInfo?: AuthInfo | undefined;
  /** The 2025 session or stdio link the message belongs to (`engine.connect`); none for a stateless HTTP request. */
  readonly connection?: EngineConnection | undefined;
  /** Aborted when the client goes away (the HTTP response closed). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Sends a message on this request's own stream before its answer (progress, log messages, a 2025
   * question). Absent where nothing can be sent before the answer: such messages are dropped.
   */
  readonly send?: MessageSink | undefined;
  /** Ends this request's SSE stream early so the client resumes it (SEP-1699); absent where it cannot. */
  readonly closeStream?: (() => void) | undefined;
  /** The transport's name, as middleware sees it: `http`, `stdio`… */
  readonly transport?: string | undefined;
  /** The peer's IP address (the HTTP socket's); absent where there is none (stdio). */
  readonly remoteAddress?: string | undefined;
}

const EMPTY: JsonObject = Object.freeze({}) as JsonObject;

/** What a call reads of the engine serving it. */
export interface CallHost {
  readonly logger: Logger;
  readonly catalog: Catalog;
  readonly pageSize: number | undefined;
  principalOf(auth: AuthInfo | undefined): string;
  legacyVersionOf(inbound: Inbound): string;
}

/** The engine's state of one request. */
export class Call implements MiddlewareContext {
  readonly engine: CallHost;
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject;
  readonly era: 'modern' | 'legacy';
  readonly inbound: Inbound;
  readonly envelope: Envelope | undefined;
  readonly connection: Connection | undefined;
  target: Target | undefined = undefined;
  arguments: JsonObject | undefined = undefined;
  /** Set once the request's `requestState` was verified: the payload it carried. */
  verifiedState: unknown = undefined;
  #controller: AbortController | undefined;
  /** Response headers middleware set: name/value pairs in one flat list, names in lower case, each once. */
  #headers: string[] | undefined;
  #state: Map<unknown, unknown> | undefined;
  #principal: string | undefined;
  /** The answer went out (or will never): related messages after it are dropped. */
  answered = false;

  constructor(
    engine: CallHost,
    id: RequestId,
    method: string,
    params: JsonObject | undefined,
    inbound: Inbound,
  ) {
    this.engine = engine;
    this.id = id;
    this.method = method;
    this.params = params ?? EMPTY;
    this.era = inbound.era;
    this.inbound = inbound;
    this.envelope = inbound.envelope;
    this.connection = inbound.connection as Connection | undefined;
  }

  get protocolVersion(): string {
    return (
      this.envelope?.protocolVersion ??
      this.connection?.protocolVersion ??
      this.engine.legacyVersionOf(this.inbound)
    );
  }

  /** What the client declared it can do: the request's envelope (2026-07-28), or `initialize` (2025). */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.envelope !== undefined
      ? this.envelope.clientCapabilities
      : this.connection?.clientCapabilities;
  }

  get client(): MiddlewareContext['client'] {
    return {
      info: this.envelope !== undefined ? this.envelope.clientInfo : this.connection?.clientInfo,
      capabilities: this.clientCapabilities,
    };
  }

  get name(): string | undefined {
    const key = this.method === 'resources/read' ? 'uri' : 'name';
    const value = this.params[key];
    return typeof value === 'string' ? value : undefined;
  }

  get auth(): AuthInfo | undefined {
    return this.inbound.authInfo;
  }

  get principal(): string {
    this.#principal ??= this.engine.principalOf(this.inbound.authInfo);
    return this.#principal;
  }

  get sessionId(): string | undefined {
    return this.connection?.sessionId;
  }

  get transport(): string {
    return this.inbound.transport ?? this.connection?.transport ?? 'http';
  }

  get remoteAddress(): string | undefined {
    return this.inbound.remoteAddress;
  }

  get logger(): Logger {
    return this.engine.logger;
  }

  get state(): Map<unknown, unknown> {
    this.#state ??= new Map();
    return this.#state;
  }

  /**
   * The bare answers of a 2026-07-28 retry's `inputResponses`, by key: wrapped `{ method, result }`
   * entries are left out, as the SDK leaves them out.
   */
  get inputResponses(): Readonly<Record<string, unknown>> {
    const responses = this.params.inputResponses;
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) return EMPTY;
    const accepted: JsonObject = {};
    for (const [key, entry] of Object.entries(responses)) {
      if (
        typeof entry !== 'object' ||
        entry === null ||
        Array.isArray(entry) ||
        'method' in entry ||
        'result' in entry
      )
        continue;
      accepted[key] = entry;
    }
    return accepted;
  }

  /** The progress token the client sent, if any. */
  get progressToken(): string | number | undefined {
    const token = metaOf(this.params)?.progressToken;
    return typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  get signal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    // A stateless request that cannot be cancelled but by leaving: the transport's own signal does.
    const outer = this.inbound.signal;
    if (this.connection === undefined && outer !== undefined) return outer;
    return this.#abortController().signal;
  }

  /**
   * Whether the request was cancelled (by {@link abort}) or its transport's signal aborted, without making
   * a signal to find out: the engine asks this of every call on a connection, most of which never had one.
   */
  get aborted(): boolean {
    if (this.#controller !== undefined) return this.#controller.signal.aborted;
    return this.inbound.signal?.aborted === true;
  }

  /** Cancels the request (a connection's `notifications/cancelled`, or the connection closing). */
  abort(reason: unknown): void {
    this.#abortController().abort(reason);
  }

  #abortController(): AbortController {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      const outer = this.inbound.signal;
      if (outer !== undefined) {
        if (outer.aborted) controller.abort(outer.reason);
        else outer.addEventListener('abort', () => controller.abort(outer.reason), { once: true });
      }
      this.#controller = controller;
    }
    return this.#controller;
  }

  header(name: string): string | undefined {
    return this.inbound.headers?.(name.toLowerCase());
  }

  declarationOf(entry: Readonly<Record<string, unknown>>): Target | undefined {
    const catalog = this.engine.catalog;
    const { name, uri } = entry;
    switch (this.method) {
      case 'tools/list': {
        const tool = typeof name === 'string' ? catalog.tools.get(name) : undefined;
        return tool && { kind: 'tool', name: tool.name, declaration: tool.declaration };
      }
      case 'prompts/list': {
        const prompt = typeof name === 'string' ? catalog.prompts.get(name) : undefined;
        return prompt && { kind: 'prompt', name: prompt.name, declaration: prompt.declaration };
      }
      case 'resources/list': {
        const found =
          typeof uri === 'string' && URL.canParse(uri) ? catalog.resource(new URL(uri).href) : undefined;
        return found && { kind: 'resource', name: found.entry.name, declaration: found.entry.declaration };
      }
      case 'resources/templates/list': {
        const template = catalog.templates.find((candidate) => candidate.name === name);
        return template && { kind: 'resource', name: template.name, declaration: template.declaration };
      }
      default:
        return undefined;
    }
  }

  setHeader(name: string, value: string): void {
    const lower = lowerCaseName(name);
    const list = this.#headers;
    // The first two are lists made whole, of their size (a limiter's pair is the common case): growing a
    // list costs a call into V8's runtime.
    if (list === undefined) this.#headers = [lower, value];
    else if (list.length === 2 && list[0] !== lower)
      this.#headers = [list[0] as string, list[1] as string, lower, value];
    else setHeaderIn(list, lower, value);
  }

  /** Headers middleware set for the HTTP response. */
  get responseHeaders(): HeaderList | undefined {
    return this.#headers;
  }

  /** Sends a message on this request's own stream, before its answer; dropped where there is none. */
  sendRelated(message: Message): void {
    if (this.answered) return;
    this.inbound.send?.(message);
  }

  /** Sends a notification related to this request (progress, a log message). */
  notify(method: string, params: JsonObject): void {
    this.sendRelated(notificationMessage(method, params));
  }

  /** Whether this call's stream can carry anything before its answer. */
  get canSend(): boolean {
    return this.inbound.send !== undefined;
  }

  /**
   * Sends `notifications/message` when the client wants this level: the request's `logLevel` (2026-07-28:
   * none means no log messages), or the level the connection set (2025: none means every level).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.envelope !== undefined ? this.envelope.logLevel : this.connection?.logLevel;
    if (this.envelope !== undefined && threshold === undefined) return;
    if (threshold !== undefined && LEVELS[level] < LEVELS[threshold]) return;
    this.notify('notifications/message', logger === undefined ? { level, data } : { level, data, logger });
  }
}

/** Syslog severities, lowest first. */
export const LEVELS: Readonly<Record<LoggingLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};
