// connect(): the official SDK client, connected to a Pier server in memory or over real HTTP, in the
// protocol era the test names, answering the server's requests from the test.
import {
  Client,
  InMemoryTransport,
  type Notification,
  type Progress,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { PierServer } from '@pier/core';
import { serveTransport } from '@pier/core/transport';
import { type Era, negotiationFor } from './eras.js';
import { messageOf, TestingError } from './errors.js';
import { type ConnectOptions, validateConnectOptions } from './options.js';
import { track, untrack } from './registry.js';

/** A connected client and what it received. */
export interface TestClient {
  /** The official SDK client (`@modelcontextprotocol/client`): call `listTools`, `callTool`… on it. */
  readonly client: Client;
  readonly era: Era;
  /** The revision the client and server agreed on, such as `2026-07-28` or `2025-11-25`. */
  readonly protocolVersion: string;
  readonly transport: 'memory' | 'http';
  /** The MCP endpoint, over HTTP (`http://127.0.0.1:40123/mcp`); `undefined` in memory. */
  readonly url: string | undefined;
  /**
   * Every notification the server sent that has no handler of its own on `client`, in order
   * (`notifications/message`, `notifications/resources/updated`…). Progress goes to {@link progress}.
   */
  readonly notifications: readonly Notification[];
  /**
   * Resolves with the first notification received (already, or within `timeoutMs`, default 5 000)
   * whose method is `method` and that `where` accepts; rejects with `TIMEOUT` otherwise.
   */
  waitForNotification(
    method: string,
    options?: { where?: (notification: Notification) => boolean; timeoutMs?: number },
  ): Promise<Notification>;
  /** A progress recorder: pass `onprogress` to a request, read `updates` after. */
  progress(): ProgressRecorder;
  /** Closes the client, and the server when `connect` started it. Idempotent. */
  close(): Promise<void>;
}

/** Collects the `notifications/progress` of the requests it is passed to. */
export interface ProgressRecorder {
  readonly onprogress: (progress: Progress) => void;
  readonly updates: readonly Progress[];
}

const DEFAULT_CLIENT_INFO = { name: 'pier-testing', version: '0.0.0' } as const;

/**
 * Connects the official SDK client to `target`: a `PierServer` (in memory, or over HTTP — started on a
 * free port when it is not listening yet) or the URL of a server already running.
 *
 * @example
 * ```ts
 * const { client, close } = await connect(createServer(WeatherServer), { era: '2025-11-25' });
 * const result = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
 * await close();
 * ```
 */
export async function connect(
  target: PierServer | string | URL,
  options: ConnectOptions = {},
): Promise<TestClient> {
  const checked = validateConnectOptions(target, options);
  const { era, transport } = checked;
  const notifications: Notification[] = [];
  const waiters = new Set<() => void>();
  const client = buildClient(options, era, (notification) => {
    notifications.push(notification);
    for (const wake of [...waiters]) wake();
  });

  const cleanups: (() => Promise<void> | void)[] = [];
  let url: string | undefined;
  try {
    if (transport === 'memory') {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      cleanups.push(await serveInMemory(target as PierServer, serverSide));
      await client.connect(clientSide, { timeout: checked.timeoutMs });
    } else {
      url = await httpUrl(target, options, cleanups);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: checked.timeoutMs });
    }
  } catch (error) {
    await client.close().catch(() => undefined);
    await runCleanups(cleanups);
    if (error instanceof TestingError) throw error;
    throw new TestingError(
      'CONNECT_FAILED',
      `connect: a ${era} client could not connect ${url === undefined ? 'in memory' : `to ${url}`}: ${messageOf(error)}`,
      { cause: error },
    );
  }

  let closing: Promise<void> | undefined;
  const connected: TestClient = {
    client,
    era,
    protocolVersion: client.getNegotiatedProtocolVersion() ?? '',
    transport,
    url,
    notifications,
    waitForNotification: (method, { where = () => true, timeoutMs = 5_000 } = {}) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const found = notifications.find((n) => n.method === method && where(n));
          if (found === undefined) return false;
          clearTimeout(timer);
          waiters.delete(look);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          const seen = notifications.map((n) => n.method).join(', ') || 'none';
          reject(new TestingError('TIMEOUT', `no ${method} within ${timeoutMs} ms (received: ${seen})`));
        }, timeoutMs);
        if (!look()) waiters.add(look);
      }),
    progress: () => {
      const updates: Progress[] = [];
      return { onprogress: (progress) => updates.push(progress), updates };
    },
    close: () => {
      closing ??= (async () => {
        untrack(connected);
        try {
          await client.close();
        } finally {
          await runCleanups(cleanups);
        }
      })();
      return closing;
    },
  };
  track(connected);
  return connected;
}

function buildClient(
  options: ConnectOptions,
  era: Era,
  record: (notification: Notification) => void,
): Client {
  const { onElicit, onSample, roots } = options;
  const client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    ...negotiationFor(era),
    capabilities: {
      ...(onElicit === undefined ? {} : { elicitation: { form: {}, url: {} } }),
      ...(onSample === undefined ? {} : { sampling: {} }),
      ...(roots === undefined ? {} : { roots: {} }),
    },
  });
  if (onElicit !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => onElicit(request.params));
  }
  if (onSample !== undefined) {
    client.setRequestHandler('sampling/createMessage', async (request) => onSample(request.params));
  }
  if (roots !== undefined) {
    client.setRequestHandler('roots/list', async () => ({
      roots: [...(typeof roots === 'function' ? await roots() : roots)],
    }));
  }
  const fallback: Client['fallbackNotificationHandler'] = async (notification) => record(notification);
  client.fallbackNotificationHandler = fallback;
  return client;
}

/**
 * Serves one in-memory connection the way Pier serves stdio: the engine decides the era from the opening
 * message and keeps one connection for it. Returns what closes it.
 */
async function serveInMemory(
  server: PierServer,
  serverSide: InMemoryTransport,
): Promise<() => Promise<void>> {
  const served = await serveTransport(server, serverSide, { name: 'memory' });
  return () => served.close();
}

/** The URL to connect to; starts the server on a free port when it is not listening yet. */
async function httpUrl(
  target: PierServer | string | URL,
  options: ConnectOptions,
  cleanups: (() => Promise<void> | void)[],
): Promise<string> {
  if (typeof target === 'string' || target instanceof URL) return new URL(target).href;
  const address = target.address;
  if (address !== undefined) return address.url;
  const listening = await target.listen({
    host: '127.0.0.1',
    port: 0,
    ...options.http,
    transport: 'streamable-http',
  });
  cleanups.push(() => target.close());
  return listening.url;
}

async function runCleanups(cleanups: (() => Promise<void> | void)[]): Promise<void> {
  // Last started, first stopped: the memory connection before the server it came from.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}
