// Scale-out mode (REDIS_URL): what every replica of the app shares through Redis. One module, so that what
// a replica needs from Redis is in one place: main.ts hands these parts to createServer and the transport.
import type { EventBus, LimitStore, Logger, RequestStateOptions, TasksOptions } from '@pier/core';
import type { HealthCheckDefinition } from '@pier/plugin-health';
import {
  type RedisEventBus,
  type RedisRequestStateKeys,
  type RedisSessionRelay,
  redisEventBus,
  redisLimitStore,
  redisRequestStateKeys,
  redisSessionRelay,
  redisTaskStore,
} from '@pier/redis';
import type { HttpListenOptions } from '@pier/transport-http';
import { createClient } from '@redis/client';
import type { NotesStore } from './notes-store.js';
import { type NotesRedisClient, REDIS_KEY_PREFIX, RedisNotesStore } from './redis-notes-store.js';

/** What {@link scaleOutParts} reads from the configuration. */
export interface ScaleOutSettings {
  /** `REDIS_URL` (a secret: it may carry a password; never logged or quoted in an error). */
  readonly redisUrl: string;
  /** `REQUEST_STATE_KEY`, when set; otherwise the keys are shared, and rotated, through Redis. */
  readonly requestStateKey?: string | undefined;
  readonly logger: Logger;
  /** How long startup waits for Redis before giving up. Default {@link REDIS_CONNECT_TIMEOUT_MS}. */
  readonly connectTimeoutMs?: number;
  /** `SESSIONS`: 2025-era sessions are served by any replica through the session relay. */
  readonly sessions?: boolean;
  /** `ADVERTISE_URL`: where the other replicas reach this one's MCP endpoint (the relay's `advertiseUrl`). */
  readonly advertiseUrl?: string | undefined;
}

/** What the replicas share, ready to hand to `createServer` (and, later, to the HTTP transport). */
export interface ScaleOutParts {
  /** The Redis event bus: change events raised on any replica reach every listening client once. */
  readonly eventBus: EventBus;
  /** The input-required keys every replica signs and checks `requestState` with (`REQUEST_STATE_KEY`, or Redis). */
  readonly requestState: RequestStateOptions;
  /** The notes, in Redis. */
  readonly notesStore: NotesStore;
  /** The `redis` check, non-critical: a Redis outage degrades readiness, never fails it. */
  readonly healthChecks: readonly HealthCheckDefinition[];
  /** Where ADD_NOTE_LIMIT counts: in Redis, so the limit holds across the fleet. */
  readonly limitStore: LimitStore;
  /** For createServer's `tasks` option: tasks in Redis (`redisTaskStore`), so any replica serves them. */
  readonly tasks?: TasksOptions;
  /** Added to httpTransport's options: the 2025 session relay, when sessions are on. */
  readonly http?: Partial<HttpListenOptions>;
  /** Closes the bus and the notes' client (after the server closed). */
  close(): Promise<void>;
}

/** Bound on reaching Redis at startup: past it the app exits with 1 (an orchestrator retries). */
export const REDIS_CONNECT_TIMEOUT_MS = 10_000;
/** The stream the replicas' event bus shares. */
export const EVENTS_STREAM_KEY = `${REDIS_KEY_PREFIX}events`;
/** The prefix of the tasks' keys (and of their change channel) in Redis. */
export const TASKS_KEY_PREFIX = `${REDIS_KEY_PREFIX}task:`;
/** The prefix of the limits' keys in Redis. */
export const LIMITS_KEY_PREFIX = `${REDIS_KEY_PREFIX}limit:`;
/** The prefix of the 2025 session records' keys in Redis. */
export const SESSIONS_KEY_PREFIX = `${REDIS_KEY_PREFIX}session:`;
/**
 * Where the shared input-required key lives when `REQUEST_STATE_KEY` is not set (beside it `:previous`,
 * the key before the last rotation, and `:copy`, which survives the key's deletion).
 */
export const REQUEST_STATE_REDIS_KEY = `${REDIS_KEY_PREFIX}request-state-key`;

/**
 * Connects to Redis and builds the shared parts. Rejects (with a message that never holds the URL) when
 * Redis cannot be reached within the connect timeout.
 */
export async function scaleOutParts(settings: ScaleOutSettings): Promise<ScaleOutParts> {
  const { redisUrl, logger } = settings;
  const timeoutMs = settings.connectTimeoutMs ?? REDIS_CONNECT_TIMEOUT_MS;
  const log = logger.child('redis');
  // Commands fail at once while Redis is unreachable (no unbounded in-memory queue): a tool call gets an
  // error instead of waiting for a reconnect that may never come.
  const client = createClient({ url: redisUrl, disableOfflineQueue: true });
  let reported = false;
  client.on('error', (error: unknown) => {
    // node-redis reports every failed reconnect: say it once per outage, without the URL.
    if (reported) return;
    reported = true;
    log.warn('Redis connection failed; retrying', { error: safeMessage(error, redisUrl) });
  });
  client.on('ready', () => {
    if (reported) log.info('Redis connection back');
    reported = false;
  });
  const bus: RedisEventBus = redisEventBus({
    url: redisUrl,
    stream: EVENTS_STREAM_KEY,
    onerror: (error) => log.warn('event bus', { code: error.code, error: safeMessage(error, redisUrl) }),
  });
  // Tasks (export_notes) in Redis: any replica answers tasks/get, and a cancel made through one reaches the
  // replica running the export.
  const tasks = redisTaskStore({
    url: redisUrl,
    prefix: TASKS_KEY_PREFIX,
    onerror: (error) => log.warn('task store', { code: error.code, error: safeMessage(error, redisUrl) }),
  });
  // 2025-era sessions (SESSIONS=true) on any replica: the replica that got `initialize` owns the session,
  // the others relay its requests to it, with no load-balancer affinity. Made once the shared client is
  // connected (the relay uses it and would otherwise connect it a second time).
  let relay: RedisSessionRelay | undefined;
  // The input-required keys, unless REQUEST_STATE_KEY fixes one: read from Redis by every replica, so a
  // rotation (deleting the key) reaches all of them (see the README). Made on the connected client.
  let keys: RedisRequestStateKeys | undefined;
  const close = async () => {
    // The relay writes its last releases through the shared client: it closes first.
    await relay?.close();
    await Promise.allSettled([bus.close(), tasks.close(), keys?.close(), client.close()]);
  };
  try {
    await withTimeout(
      (async () => {
        await client.connect();
        if (settings.sessions === true) {
          relay = redisSessionRelay({
            client,
            prefix: SESSIONS_KEY_PREFIX,
            ...(settings.advertiseUrl !== undefined && { advertiseUrl: settings.advertiseUrl }),
            onerror: (error) =>
              log.warn('session relay', { code: error.code, error: safeMessage(error, redisUrl) }),
          });
        }
        if (settings.requestStateKey === undefined) {
          keys = redisRequestStateKeys({ client, key: REQUEST_STATE_REDIS_KEY });
          // Made now, if missing, so that the fleet has one from its first request.
          await keys.read();
        }
        await bus.ready;
        await tasks.ready;
      })(),
      timeoutMs,
      `Redis (REDIS_URL) did not answer within ${timeoutMs} ms`,
    );
    return {
      eventBus: bus,
      requestState: keys === undefined ? { key: settings.requestStateKey as string } : { keys },
      notesStore: new RedisNotesStore(client as unknown as NotesRedisClient),
      healthChecks: [bus.healthCheck()],
      tasks: { store: tasks },
      // On the shared client: one more script per add_note, no connection of its own.
      limitStore: redisLimitStore({ client, prefix: LIMITS_KEY_PREFIX }),
      ...(relay !== undefined && { http: { sessionRelay: relay } }),
      close,
    };
  } catch (error) {
    await close();
    throw new Error(safeMessage(error, redisUrl));
  }
}

/** An error's message with the URL (and its password) cut out, whatever the client put in it. */
function safeMessage(error: unknown, url: string): string {
  let message = error instanceof Error ? error.message : String(error);
  const secrets = [url];
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password !== '') secrets.push(password, new URL(url).password);
  } catch {
    // not a URL: only the whole text is cut out
  }
  for (const secret of secrets) if (secret !== '') message = message.split(secret).join('<REDIS_URL>');
  return message;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
