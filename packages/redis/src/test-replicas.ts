// Test helper (excluded from the build): N Pier replicas of one server in this process, each with its own
// Redis connections (or the default in-memory bus), as N processes would have.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createServer,
  defineResource,
  defineServer,
  defineTool,
  type PierServer,
  type RequestStateOptions,
} from '@pier/core';
import { healthPlugin } from '@pier/plugin-health';
import { httpTransport } from '@pier/transport-http';
import { type RedisEventBus, type RedisTaskStore, redisEventBus, redisTaskStore } from './index.js';

export interface Replica {
  readonly name: string;
  readonly server: PierServer;
  readonly url: string;
  readonly port: number;
  readonly bus: RedisEventBus | undefined;
  /** The Redis task store (`taskPrefix` given), else undefined: the in-memory default. */
  readonly tasks: RedisTaskStore | undefined;
  /** One entry per run of the `slow` task tool aborted on this replica. */
  readonly aborted: string[];
}

export const SHARED_KEY = 'a-shared-secret-of-at-least-32-bytes!!';
const NAME_SCHEMA = {
  type: 'object' as const,
  properties: { name: { type: 'string' as const } },
  required: ['name'],
};

/** Starts `count` replicas named r1…rN; `redisUrl` undefined gives each the in-memory bus. */
export async function startReplicas(
  count: number,
  options: {
    redisUrl?: string | undefined;
    sharedKey?: boolean;
    stream?: string;
    /** With `redisUrl`: tasks in Redis under this prefix. */
    taskPrefix?: string;
    /** Each replica's `requestState` option (instead of `sharedKey`). */
    requestState?: (name: string) => RequestStateOptions | Promise<RequestStateOptions>;
    /** The first replica's name is `r<first>` (for replicas started later). Default 1. */
    first?: number;
  } = {},
): Promise<Replica[]> {
  const replicas: Replica[] = [];
  const first = options.first ?? 1;
  for (let index = first; index < first + count; index++) {
    const name = `r${index}`;
    const bus =
      options.redisUrl === undefined
        ? undefined
        : redisEventBus({
            url: options.redisUrl,
            nodeId: name,
            ...(options.stream && { stream: options.stream }),
          });
    const tasks =
      options.redisUrl !== undefined && options.taskPrefix !== undefined
        ? redisTaskStore({ url: options.redisUrl, prefix: options.taskPrefix })
        : undefined;
    const aborted: string[] = [];
    const server = createServer(
      defineServer({
        name: 'notes',
        version: '1.0.0',
        tools: [
          defineTool({ name: 'whoami', handler: () => name }),
          defineTool({
            name: 'greet',
            handler: async (_args, ctx) => {
              const answer = await ctx.elicit(
                { message: 'Name?', requestedSchema: NAME_SCHEMA },
                { key: 'name' },
              );
              return `Hello ${String(answer.content?.name)}, from ${name}`;
            },
          }),
          defineTool({
            name: 'quick',
            task: 'required',
            handler: async () => {
              await sleep(100);
              return `done by ${name}`;
            },
          }),
          defineTool({
            name: 'slow',
            task: 'required',
            // Runs until aborted, at most 10 s.
            handler: (_args, ctx) =>
              new Promise<string>((resolve) => {
                const onAbort = () => {
                  clearTimeout(timer);
                  aborted.push(name);
                  resolve('aborted');
                };
                const timer = setTimeout(() => {
                  ctx.signal.removeEventListener('abort', onAbort);
                  resolve(`slow done by ${name}`);
                }, 10_000);
                ctx.signal.addEventListener('abort', onAbort, { once: true });
              }),
          }),
          defineTool({
            name: 'confirm',
            task: 'required',
            handler: async (_args, ctx) => {
              const answer = await ctx.elicit({
                message: 'Sure?',
                requestedSchema: {
                  type: 'object',
                  properties: { ok: { type: 'boolean' } },
                  required: ['ok'],
                },
              });
              return answer.content?.ok === true ? `confirmed on ${name}` : `declined on ${name}`;
            },
          }),
        ],
        resources: [
          defineResource({ name: 'index', uri: 'notes://index', subscribable: true, handler: () => name }),
        ],
      }),
      {
        handleSignals: false,
        logStream: { write: () => true },
        ...(bus && { eventBus: bus }),
        tasks: { ttlMs: 60_000, pollIntervalMs: 50, ...(tasks && { store: tasks }) },
        ...(options.requestState !== undefined
          ? { requestState: await options.requestState(name) }
          : options.sharedKey !== false && { requestState: { key: SHARED_KEY } }),
        plugins: [healthPlugin({ checks: bus ? [bus.healthCheck()] : [] })],
      },
    );
    await bus?.ready;
    await tasks?.ready;
    const address = await server.listen(httpTransport({ port: 0, sessions: true }));
    replicas.push({ name, server, url: address.url, port: address.port as number, bus, tasks, aborted });
  }
  return replicas;
}

export async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  await Promise.all(replicas.map((replica) => replica.server.close()));
  await Promise.all(replicas.map((replica) => replica.bus?.close()));
  await Promise.all(replicas.map((replica) => replica.tasks?.close()));
}

export interface Watcher {
  readonly client: Client;
  /** `uri` of every `notifications/resources/updated` received, in order. */
  readonly updates: string[];
  /** Count of `notifications/tools/list_changed` received. */
  readonly toolsChanged: () => number;
}

/** An SDK v2 client in 2026-07-28 (`modern`) or 2025 (`legacy`) mode, counting change notifications. */
export async function watcher(url: string, era: 'modern' | 'legacy'): Promise<Watcher> {
  const client =
    era === 'modern'
      ? new Client({ name: 'watcher', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
      : new Client({ name: 'watcher', version: '1.0.0' });
  const updates: string[] = [];
  let tools = 0;
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push(notification.params.uri);
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    tools++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, updates, toolsChanged: () => tools };
}

/** Resolves once `check` holds (polled every 10 ms); fails after `ms`, naming `what`. */
export async function until(check: () => boolean, what: string, ms = 3_000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited >= ms) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const TASKS = 'io.modelcontextprotocol/tasks';
let nextId = 1;
/** A JSON-RPC answer to {@link modernRequest}, and the replica that gave it. */
export interface ModernAnswer {
  replica: string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * A raw 2026-07-28 request from a client that declares elicitation and the tasks extension (the SDK v2
 * client refuses `resultType: 'task'`); returns the JSON-RPC answer and the replica HAProxy picked.
 */
export async function modernRequest(
  url: string,
  method: string,
  params: Record<string, unknown>,
): Promise<ModernAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
      ...(typeof params.taskId === 'string' && { 'mcp-name': params.taskId }),
      connection: 'close',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  const replica = response.headers.get('x-pier-replica') ?? new URL(url).port;
  const text = await response.text();
  // A JSON answer, or an SSE stream whose last data line is the answer.
  const json = text.startsWith('{')
    ? text
    : (text
        .match(/^data: (.*)$/gm)
        ?.at(-1)
        ?.slice(6) ?? 'null');
  return { replica, ...(JSON.parse(json) as object) };
}
