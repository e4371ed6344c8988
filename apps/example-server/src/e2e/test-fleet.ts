// Test helpers (not built) for the fleet tests: a real redis-server and a real HAProxy from Debian's
// packages (installed with apt-get when missing, or a failure saying how), replicas of the built app as
// child processes, all on loopback ports and stopped by their own PIDs.
// ensureInstalled/startRedis follow packages/redis/src/test-infra.ts (a small copy: that file is private to
// its package, and this one runs the app's own deploy/haproxy.cfg instead of a generated config).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client, type McpSubscription, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type ServerProcess, spawnServer } from '@pier/testing';
import { APP_DIR, baseEnv, MAIN, START_TIMEOUT_MS, TEST_API_KEY, tempDir } from './test-app.js';

/** The HAProxy configuration the README documents, run as is. */
export const HAPROXY_CFG = join(APP_DIR, 'deploy', 'haproxy.cfg');

const PACKAGES: Record<string, string> = { 'redis-server': 'redis-server', haproxy: 'haproxy' };

function found(binary: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Installs redis-server and haproxy with apt-get when missing; throws how to install them otherwise. */
export function ensureInstalled(): void {
  const missing = Object.keys(PACKAGES).filter((binary) => !found(binary));
  if (missing.length === 0) return;
  const how = `apt-get update && apt-get install -y ${missing.map((b) => PACKAGES[b]).join(' ')}`;
  if (process.getuid?.() !== 0 || !found('apt-get')) {
    throw new Error(`the fleet tests need ${missing.join(' and ')}; install them first: sudo ${how}`);
  }
  try {
    execFileSync('sh', ['-c', how], { stdio: 'ignore', timeout: 240_000 });
  } catch (error) {
    throw new Error(`the fleet tests: \`${how}\` failed (${String(error)}); install them by hand`);
  }
  const still = Object.keys(PACKAGES).filter((binary) => !found(binary));
  if (still.length > 0) throw new Error(`the fleet tests: ${still.join(', ')} still missing after ${how}`);
}

/** A free loopback port (closed again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Stops a child by its own PID and waits (bounded: SIGKILL after 5 s) for it to exit. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, signal);
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid, 'SIGKILL');
    }
  }, 5_000);
  await exited;
  clearTimeout(timer);
}

function waitForOutput(child: ChildProcess, text: string, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${ms} ms:\n${seen}`)), ms);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${String(code)}:\n${seen}`));
    });
  });
}

export interface RedisProcess {
  readonly url: string;
  /** SIGKILLs it: an outage, nothing flushed. */
  kill(): Promise<void>;
  /** Starts it again on the same port: empty, or with its data when started with `persist`. */
  restart(): Promise<void>;
  /** SIGTERMs it (with `persist`, it writes its data first). */
  stop(): Promise<void>;
}

/**
 * A redis-server on a free loopback port, without persistence unless `persist` (an append-only file,
 * fsynced on every write, in a temporary directory: a stop and a restart keep the data, as a production
 * Redis with AOF does); `password` turns on `requirepass`.
 */
export async function startRedis(
  options: { password?: string; persist?: boolean } = {},
): Promise<RedisProcess> {
  const port = await freePort();
  const dir = options.persist === true ? await tempDir('pier-redis-') : undefined;
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        ...(dir === undefined
          ? ['--appendonly', 'no']
          : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir]),
        ...(options.password === undefined ? [] : ['--requirepass', options.password]),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await waitForOutput(child, 'Ready to accept connections', 'redis-server');
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: () => stopChild(child, 'SIGKILL'),
    restart: launch,
    stop: () => stopChild(child),
  };
}

/** One replica of the app: `node dist/main.js --transport streamable-http` with PORT, HOST, REDIS_URL… */
export interface Replica {
  readonly name: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly origin: string;
  /** The running process; replaced by {@link Replica.start}. */
  process: ServerProcess | undefined;
  /** Starts it (again) on its port; resolves once it printed its URL. */
  start(): Promise<void>;
}

/**
 * Describes `count` replicas r1…rN on free ports (started by {@link Replica.start}); `env` is added to each
 * one's environment (REDIS_URL for scale-out mode). Each has its own data directory, so notes can only
 * agree across replicas through Redis.
 */
export async function replicas(count: number, env: NodeJS.ProcessEnv): Promise<Replica[]> {
  const list: Replica[] = [];
  for (let index = 1; index <= count; index++) {
    const port = await freePort();
    const dataDir = await tempDir(`pier-fleet-r${index}-`);
    const replica: Replica = {
      name: `r${index}`,
      port,
      url: `http://127.0.0.1:${port}/mcp`,
      origin: `http://127.0.0.1:${port}`,
      process: undefined,
      async start() {
        replica.process = await spawnServer(process.execPath, [MAIN], {
          cwd: APP_DIR,
          env: baseEnv({
            API_KEY: TEST_API_KEY,
            TRANSPORT: 'streamable-http',
            HOST: '127.0.0.1',
            PORT: String(port),
            DATA_DIR: dataDir,
            // An upstream that refuses at once: the non-critical check is degraded, never slow.
            BASE_URL: 'http://127.0.0.1:9/',
            TIMEOUT: '1000',
            LOG_LEVEL: 'warn',
            ...env,
          }),
          urlPattern: /listening on (http:\/\/\S+\/mcp)/,
          // Three start at once on a shared machine: more room than one app alone gets.
          timeoutMs: 3 * START_TIMEOUT_MS,
        });
      },
    };
    list.push(replica);
  }
  return list;
}

export interface LoadBalancer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** Names of the backends HAProxy currently counts as UP. */
  up(): Promise<string[]>;
  stop(): Promise<void>;
}

/** HAProxy running deploy/haproxy.cfg over three replicas; resolves once every backend is UP. */
export async function startHaproxy(backends: readonly Replica[]): Promise<LoadBalancer> {
  const [port, statsPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PIER_LB_BIND: `127.0.0.1:${port}`,
    PIER_LB_STATS: `127.0.0.1:${statsPort}`,
    PIER_HOST_HEADER: '127.0.0.1',
  };
  for (const replica of backends) env[`PIER_${replica.name.toUpperCase()}`] = `127.0.0.1:${replica.port}`;
  const child = spawn('haproxy', ['-db', '-f', HAPROXY_CFG], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const up = async () => {
    const stats = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, {
      signal: AbortSignal.timeout(2_000),
    })
      .then((response) => response.text())
      .catch(() => '');
    return stats
      .split('\n')
      .filter((line) => line.startsWith('pier_notes,r') && line.includes(',UP'))
      .map((line) => line.split(',')[1] as string);
  };
  const deadline = Date.now() + 15_000;
  while ((await up()).length < backends.length) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`haproxy: backends not all UP within 15 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, up, stop: () => stopChild(child) };
}

/** A client counting the change notifications it hears. */
export interface Watcher {
  readonly client: Client;
  /** `uri` of every `notifications/resources/updated`, in order. */
  readonly updates: string[];
  /** How many `notifications/resources/list_changed` arrived. */
  listChanged(): number;
  /** The replica (X-Pier-Replica, set by HAProxy) that answered the `subscriptions/listen` request. */
  listenReplica(): string | undefined;
}

/**
 * An SDK v2 client to `url`: `modern` negotiates 2026-07-28 (listen with {@link listen}), `legacy` speaks
 * 2025 (needs SESSIONS=true for subscriptions). Its own fetch remembers which replica held the listen.
 */
export async function watcher(url: string, era: 'modern' | 'legacy' = 'modern'): Promise<Watcher> {
  const client = new Client(
    { name: `fleet-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
  );
  const updates: string[] = [];
  let listChanged = 0;
  let replica: string | undefined;
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push(notification.params.uri);
  });
  client.setNotificationHandler('notifications/resources/list_changed', () => {
    listChanged++;
  });
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (typeof init?.body === 'string' && init.body.includes('"subscriptions/listen"')) {
      replica = response.headers.get('x-pier-replica') ?? undefined;
    }
    return response;
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch }));
  return { client, updates, listChanged: () => listChanged, listenReplica: () => replica };
}

/** Opens `subscriptions/listen` for notes://index and the resource list; resolves once acknowledged. */
export function listen(w: Watcher): Promise<McpSubscription> {
  return w.client.listen({ resourceSubscriptions: ['notes://index'], resourcesListChanged: true });
}

/** Resolves once `check` holds (polled every 10 ms); fails after `ms`, naming `what`. */
export async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited >= ms) throw new Error(`still waiting for ${what}`);
    await sleep(10);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let nextId = 1;
/** One raw 2026-07-28 `tools/call`; resolves with the HTTP status, the replica HAProxy picked and the answer. */
export async function callTool(
  url: string,
  name: string,
  args: Record<string, unknown> = {},
  extra: { capabilities?: Record<string, unknown>; params?: Record<string, unknown> } = {},
): Promise<{ status: number; replica: string | null; result?: Record<string, unknown>; error?: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    signal: AbortSignal.timeout(15_000),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...extra.params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'fleet-raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': extra.capabilities ?? {},
        },
      },
    }),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { error: text };
  }
  return {
    status: response.status,
    replica: response.headers.get('x-pier-replica'),
    ...(body.result !== undefined && { result: body.result as Record<string, unknown> }),
    ...(body.error !== undefined && { error: body.error }),
  };
}
