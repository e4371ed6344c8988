// pier dev over stdio: the client spawned pier dev and talks to it; pier dev forwards every message to
// the server process of the moment and swaps that process on reload without the client noticing.
//
// - The client's 2025 handshake (`initialize`, `notifications/initialized`), its log level and its
//   resource subscriptions are remembered and replayed to a new server; 2026-07-28 needs no handshake
//   (each request carries its envelope), but open `subscriptions/listen` streams are re-opened on it.
// - A request is answered by the server it was sent to, so calls in flight finish on the old code; the
//   old server is let go once it owes nothing. Server-to-client requests get relay-wide ids, so two
//   servers' ids never collide, and answers go back to the server that asked.
// - After a swap the tool, prompt and resource lists of old and new are compared, and the client is sent
//   `notifications/{tools,prompts,resources}/list_changed` for what changed (on 2026-07-28, on each
//   listen stream whose filter asks for it).
import type { Readable, Writable } from 'node:stream';

export type JsonRpc = {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** One server process as the relay sees it: a line of JSON in, lines of JSON out. */
export interface RelayServer {
  readonly label: string;
  send(message: JsonRpc): void;
  onMessage(listener: (message: JsonRpc) => void): void;
  /** Ends its input: a Pier server closes once it answered what it owes. */
  end(): void;
}

const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const LIST_KINDS = [
  {
    method: 'tools/list',
    key: 'tools',
    changed: 'notifications/tools/list_changed',
    filter: 'toolsListChanged',
    capability: 'tools',
  },
  {
    method: 'prompts/list',
    key: 'prompts',
    changed: 'notifications/prompts/list_changed',
    filter: 'promptsListChanged',
    capability: 'prompts',
  },
  {
    method: 'resources/list',
    key: 'resources',
    changed: 'notifications/resources/list_changed',
    filter: 'resourcesListChanged',
    capability: 'resources',
  },
  {
    method: 'resources/templates/list',
    key: 'resourceTemplates',
    changed: 'notifications/resources/list_changed',
    filter: 'resourcesListChanged',
    capability: 'resources',
  },
] as const;

/** The list-change notifications a listen stream asks for, which pier dev sends itself on a reload. */
function relayFilters(listen: { message: JsonRpc }): Record<string, true> {
  const asked = (listen.message.params?.notifications ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    LIST_KINDS.filter((kind) => asked[kind.filter] === true).map((kind) => [kind.filter, true as const]),
  );
}

/**
 * A handshake answer (initialize, server/discover) whose tools, prompts and resources capabilities say
 * listChanged: pier dev sends those notifications on a reload, whatever the server itself would.
 */
function withListChanged(message: JsonRpc): JsonRpc {
  const capabilities = message.result?.capabilities as Record<string, unknown> | undefined;
  if (capabilities === undefined) return message;
  const changed = { ...capabilities };
  for (const name of ['tools', 'prompts', 'resources']) {
    const capability = capabilities[name];
    if (typeof capability === 'object' && capability !== null)
      changed[name] = { ...(capability as Record<string, unknown>), listChanged: true };
  }
  return { ...message, result: { ...message.result, capabilities: changed } };
}

export interface SwapReport {
  /** Methods of the list_changed notifications sent, such as `notifications/tools/list_changed`. */
  readonly changed: readonly string[];
  /** Tool names added and removed, for the log line. */
  readonly tools: { readonly added: readonly string[]; readonly removed: readonly string[] };
}

interface ServerState {
  readonly server: RelayServer;
  /** Client request ids this server still owes an answer. */
  readonly owed: Set<string>;
  readonly internal: Map<string, { resolve: (m: JsonRpc) => void }>;
  retired: boolean;
  exited: boolean;
}

export class StdioRelay {
  #current: ServerState | undefined;
  readonly #servers = new Set<ServerState>();
  readonly #states = new Map<RelayServer, ServerState>();
  readonly #owner = new Map<string, ServerState>();
  readonly #outbound = new Map<number, { state: ServerState; id: string | number }>();
  #nextOutbound = 1;
  #nextInternal = 1;
  #era: '2025' | '2026' | undefined;
  #initialize: JsonRpc | undefined;
  /** Ids of the client's initialize and server/discover requests in flight. */
  readonly #handshakes = new Set<string>();
  #initialized = false;
  #logLevel: Record<string, unknown> | undefined;
  readonly #subscriptions = new Set<string>();
  readonly #listens = new Map<string, { message: JsonRpc; owner: ServerState }>();
  #envelope: Record<string, unknown> = {};
  #buffer = '';
  #held: JsonRpc[] | undefined = [];
  readonly #out: Writable;
  readonly #log: (line: string) => void;
  onClientEnd: (() => void) | undefined;

  constructor(input: Readable, output: Writable, log: (line: string) => void) {
    this.#out = output;
    this.#log = log;
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.#read(chunk));
    input.on('end', () => this.onClientEnd?.());
    input.on('close', () => this.onClientEnd?.());
  }

  /** The era the client opened with, once it sent its first message. */
  get era(): '2025' | '2026' | undefined {
    return this.#era;
  }

  /** Whether the client has sent anything yet. */
  get clientSpoke(): boolean {
    return this.#era !== undefined;
  }

  /** Makes `server` the one new requests go to, with nothing to replay (the first server). */
  attach(server: RelayServer): void {
    const state = this.#track(server);
    this.#current = state;
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const message of held) this.#fromClient(message);
  }

  /**
   * Replays the client's handshake to `next`; when it answers, compares lists, makes it current, tells
   * the client what changed, and lets the old server go once it owes nothing. Rejects (and leaves
   * the old server current) when `next` does not complete the handshake within `timeoutMs`.
   */
  async swap(next: RelayServer, timeoutMs = 10_000): Promise<SwapReport> {
    const state = this.#track(next);
    const old = this.#current;
    try {
      await this.#replay(state, timeoutMs);
    } catch (error) {
      this.#servers.delete(state);
      throw error;
    }
    const [before, after] = await Promise.all([
      old === undefined || old.exited
        ? Promise.resolve(undefined)
        : this.#lists(old, timeoutMs).catch(() => undefined),
      this.#lists(state, timeoutMs).catch(() => undefined),
    ]);
    this.#current = state;
    this.#held = undefined;
    // Open listen streams move to the new server (same ids: the client keeps its subscription).
    for (const [id, listen] of this.#listens) {
      listen.owner = state;
      state.owed.add(id);
      this.#owner.set(id, state);
      state.server.send(listen.message);
    }
    if (old !== undefined) this.retire(old.server);
    return this.#announce(before, after);
  }

  /** Lets a server go: no new requests; its input ends once it answered everything it owes. */
  retire(server: RelayServer): void {
    const state = this.#states.get(server);
    if (state === undefined || state.retired) return;
    state.retired = true;
    if (this.#current === state) this.#current = undefined;
    this.#endIfDone(state);
  }

  /** The server exited: whatever it owed is answered with an error, so no client call hangs. */
  exited(server: RelayServer, why: string): void {
    const state = this.#states.get(server);
    if (state === undefined || state.exited) return;
    state.exited = true;
    if (this.#current === state) this.#current = undefined;
    for (const id of state.owed) {
      // An open listen stream stays the client's: the next server takes it over.
      if (this.#listens.has(id)) continue;
      this.#owner.delete(id);
      this.#toClient({
        jsonrpc: '2.0',
        id: parseId(id),
        error: {
          code: -32603,
          message: `the server exited (${why}) before answering; pier dev restarts it when a file changes`,
        },
      });
    }
    state.owed.clear();
    for (const waiter of state.internal.values())
      waiter.resolve({ jsonrpc: '2.0', error: { code: -32603, message: 'exited' } });
    state.internal.clear();
    this.#servers.delete(state);
    this.#states.delete(server);
  }

  #track(server: RelayServer): ServerState {
    const state: ServerState = {
      server,
      owed: new Set(),
      internal: new Map(),
      retired: false,
      exited: false,
    };
    this.#servers.add(state);
    this.#states.set(server, state);
    server.onMessage((message) => this.#fromServer(state, message));
    return state;
  }

  #read(chunk: string): void {
    this.#buffer += chunk;
    let newline = this.#buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(newline + 1);
      newline = this.#buffer.indexOf('\n');
      if (line.trim() === '') continue;
      let message: JsonRpc;
      try {
        message = JSON.parse(line) as JsonRpc;
      } catch {
        this.#toClient({
          jsonrpc: '2.0',
          id: null as unknown as string,
          error: { code: -32700, message: 'Parse error' },
        });
        continue;
      }
      if (this.#held !== undefined && this.#current === undefined) {
        this.#note(message);
        this.#held.push(message);
        continue;
      }
      this.#fromClient(message);
    }
  }

  /** Remembers what a new server must be told. */
  #note(message: JsonRpc): void {
    const { method, params } = message;
    if (method !== undefined && this.#era === undefined)
      this.#era = method === 'initialize' ? '2025' : '2026';
    if (method === 'initialize') this.#initialize = message;
    if (method === 'notifications/initialized') this.#initialized = true;
    if (method === 'logging/setLevel') this.#logLevel = params;
    if (method === 'resources/subscribe' && typeof params?.uri === 'string')
      this.#subscriptions.add(params.uri);
    if (method === 'resources/unsubscribe' && typeof params?.uri === 'string')
      this.#subscriptions.delete(params.uri);
    const meta = params?._meta as Record<string, unknown> | undefined;
    if (meta !== undefined && method !== undefined && message.id !== undefined) {
      const envelope = Object.fromEntries(
        Object.entries(meta).filter(([key]) => key.startsWith(ENVELOPE_PREFIX) && key !== SUBSCRIPTION_ID),
      );
      if (Object.keys(envelope).length > 0) this.#envelope = envelope;
    }
  }

  #fromClient(message: JsonRpc): void {
    this.#note(message);
    const { id, method } = message;
    if (method === undefined && id !== undefined) {
      // An answer to a server-to-client request: back to the server that asked, with its own id.
      const asked = typeof id === 'number' ? this.#outbound.get(id) : undefined;
      if (asked === undefined) return;
      this.#outbound.delete(id as number);
      if (!asked.state.exited) asked.state.server.send({ ...message, id: asked.id });
      return;
    }
    if (method === 'notifications/cancelled') {
      const target = this.#owner.get(key(message.params?.requestId as string | number));
      (target ?? this.#current)?.server.send(message);
      const cancelled = key(message.params?.requestId as string | number);
      if (this.#listens.delete(cancelled)) {
        for (const server of this.#servers) {
          server.owed.delete(cancelled);
          this.#endIfDone(server);
        }
      }
      return;
    }
    const state = this.#current;
    if (state === undefined) {
      if (id !== undefined) {
        this.#toClient({
          jsonrpc: '2.0',
          id,
          error: {
            code: -32603,
            message: 'no server is running: fix the error and save; pier dev reloads on change',
          },
        });
      }
      return;
    }
    if (id !== undefined) {
      state.owed.add(key(id));
      this.#owner.set(key(id), state);
      if (method === 'subscriptions/listen') this.#listens.set(key(id), { message, owner: state });
      if (method === 'initialize' || method === 'server/discover') this.#handshakes.add(key(id));
    }
    state.server.send(message);
  }

  #fromServer(state: ServerState, message: JsonRpc): void {
    const { id, method } = message;
    if (method === undefined && id !== undefined) {
      const internal = state.internal.get(String(id));
      if (internal !== undefined) {
        state.internal.delete(String(id));
        internal.resolve(message);
        return;
      }
      const k = key(id);
      state.owed.delete(k);
      const listen = this.#listens.get(k);
      if (listen !== undefined) {
        // A listen stream ends on the server that holds it now; an old server's goodbye is dropped.
        if (listen.owner !== state) {
          this.#endIfDone(state);
          return;
        }
        // A server with static lists completes a stream that asked only for list changes it never
        // sends; pier dev sends them across reloads, so the stream stays open for the client.
        if (message.error === undefined && Object.keys(relayFilters(listen)).length > 0) {
          this.#endIfDone(state);
          return;
        }
        this.#listens.delete(k);
      }
      if (this.#owner.get(k) === state) this.#owner.delete(k);
      if (this.#handshakes.delete(k)) {
        this.#toClient(withListChanged(message));
        this.#endIfDone(state);
        return;
      }
      this.#toClient(message);
      this.#endIfDone(state);
      return;
    }
    if (method !== undefined && id !== undefined) {
      // A server-to-client request (elicitation, sampling, roots): a relay-wide id.
      const relayId = this.#nextOutbound++;
      this.#outbound.set(relayId, { state, id });
      this.#toClient({ ...message, id: relayId });
      return;
    }
    if (
      method === 'notifications/subscriptions/acknowledged' ||
      (message.params?._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID] !== undefined
    ) {
      const subscription =
        (message.params?._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID] ??
        message.params?.subscriptionId;
      const listen =
        subscription === undefined ? undefined : this.#listens.get(key(subscription as string | number));
      // A re-opened stream is acknowledged again by the new server: the client already was.
      if (
        method === 'notifications/subscriptions/acknowledged' &&
        listen !== undefined &&
        listen.owner === state &&
        this.#ackedBefore(listen)
      )
        return;
      if (listen !== undefined && listen.owner !== state) return;
      if (method === 'notifications/subscriptions/acknowledged' && listen !== undefined) {
        // The list changes pier dev announces are honoured whatever the server granted.
        const granted = (message.params?.notifications ?? {}) as Record<string, unknown>;
        this.#toClient({
          ...message,
          params: { ...message.params, notifications: { ...granted, ...relayFilters(listen) } },
        });
        return;
      }
    }
    if (state.retired && method?.endsWith('/list_changed')) return;
    this.#toClient(message);
  }

  readonly #acked = new WeakSet<object>();
  #ackedBefore(listen: { message: JsonRpc }): boolean {
    if (this.#acked.has(listen.message)) return true;
    this.#acked.add(listen.message);
    return false;
  }

  #endIfDone(state: ServerState): void {
    if (!state.retired || state.exited) return;
    // An open listen stream is not an answer owed: it moves to the next server.
    const owes = [...state.owed].some((id) => !this.#listens.has(id));
    if (owes || state.internal.size > 0) return;
    state.server.end();
  }

  async #replay(state: ServerState, timeoutMs: number): Promise<void> {
    if (this.#era === '2025' && this.#initialize !== undefined) {
      const answer = await this.#request(state, 'initialize', this.#initialize.params ?? {}, timeoutMs);
      if (answer.error !== undefined)
        throw new Error(`the new server refused the client's initialize: ${answer.error.message}`);
      if (this.#initialized) state.server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      if (this.#logLevel !== undefined)
        await this.#request(state, 'logging/setLevel', this.#logLevel, timeoutMs);
      for (const uri of this.#subscriptions)
        await this.#request(state, 'resources/subscribe', { uri }, timeoutMs);
      return;
    }
    // 2026-07-28 (or a client that has said nothing yet): server/discover proves the server answers.
    const answer = await this.#request(state, 'server/discover', {}, timeoutMs);
    if (answer.error !== undefined && this.#era === '2026') {
      throw new Error(`the new server did not answer server/discover: ${answer.error.message}`);
    }
  }

  #request(
    state: ServerState,
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<JsonRpc> {
    const id = `pier-dev:${this.#nextInternal++}`;
    const withEnvelope =
      this.#era === '2025' || method === 'initialize'
        ? params
        : {
            ...params,
            _meta: { ...this.#envelope, ...(params._meta as Record<string, unknown> | undefined) },
          };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        state.internal.delete(id);
        reject(new Error(`the server did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      state.internal.set(id, {
        resolve: (message) => {
          clearTimeout(timer);
          if (message.error?.message === 'exited' && state.exited)
            reject(new Error(`the server exited during ${method}`));
          else resolve(message);
        },
      });
      state.server.send({ jsonrpc: '2.0', id, method, params: withEnvelope });
    });
  }

  /** Every list the server has, keyed by kind, as JSON text per item name (for comparison). */
  async #lists(state: ServerState, timeoutMs: number): Promise<Map<string, Map<string, string>>> {
    const lists = new Map<string, Map<string, string>>();
    for (const kind of LIST_KINDS) {
      const items = new Map<string, string>();
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const answer = await this.#request(
          state,
          kind.method,
          cursor === undefined ? {} : { cursor },
          timeoutMs,
        );
        if (answer.error !== undefined || answer.result === undefined) break;
        for (const item of (answer.result[kind.key] as Record<string, unknown>[] | undefined) ?? []) {
          const name = String(item.name ?? item.uri ?? item.uriTemplate);
          items.set(`${name} ${String(item.uri ?? item.uriTemplate ?? '')}`, JSON.stringify(item));
        }
        cursor = answer.result.nextCursor as string | undefined;
        if (cursor === undefined) break;
      }
      lists.set(kind.method, items);
    }
    return lists;
  }

  #announce(
    before: Map<string, Map<string, string>> | undefined,
    after: Map<string, Map<string, string>> | undefined,
  ): SwapReport {
    const changed = new Set<string>();
    const tools = { added: [] as string[], removed: [] as string[] };
    if (before === undefined || after === undefined) {
      for (const kind of LIST_KINDS) changed.add(kind.changed);
    } else {
      for (const kind of LIST_KINDS) {
        const a = before.get(kind.method) ?? new Map();
        const b = after.get(kind.method) ?? new Map();
        const same = a.size === b.size && [...a].every(([name, json]) => b.get(name) === json);
        if (!same) changed.add(kind.changed);
        if (kind.key === 'tools') {
          tools.added.push(...[...b.keys()].filter((name) => !a.has(name)).map((n) => n.trim()));
          tools.removed.push(...[...a.keys()].filter((name) => !b.has(name)).map((n) => n.trim()));
        }
      }
    }
    for (const method of changed) {
      if (this.#era === '2026') {
        const filter = LIST_KINDS.find((kind) => kind.changed === method)?.filter ?? '';
        for (const [id, listen] of this.#listens) {
          const wanted = (listen.message.params?.notifications as Record<string, unknown> | undefined)?.[
            filter
          ];
          if (wanted === true) {
            this.#toClient({ jsonrpc: '2.0', method, params: { _meta: { [SUBSCRIPTION_ID]: parseId(id) } } });
          }
        }
      } else if (this.#era === '2025') {
        this.#toClient({ jsonrpc: '2.0', method });
      }
    }
    return { changed: [...changed], tools };
  }

  #toClient(message: JsonRpc): void {
    this.#out.write(`${JSON.stringify(message)}\n`);
  }

  get log(): (line: string) => void {
    return this.#log;
  }
}

/** Request ids as map keys: a number and a string that look alike are different ids. */
function key(id: string | number): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

function parseId(k: string): string | number {
  return k.startsWith('n:') ? Number(k.slice(2)) : k.slice(2);
}
