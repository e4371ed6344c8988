// The server's change events shared by every replica through one Redis stream. Each replica delivers its
// own events locally at once, appends them to the stream, and reads everyone else's from the stream, from
// the last entry it saw: a reconnect replays what it missed instead of losing it.
import { randomUUID } from 'node:crypto';
import type { BusEvent, EventBus } from '@pier/core/transport';
import { InMemoryServerEventBus } from '@pier/core/transport';
import { createRedisClient, entriesOf, type RedisClientLike } from './client.js';
import { messageOf, PierRedisError } from './errors.js';
import { type RedisHealthCheck, type RedisHealthCheckOptions, redisHealthCheck } from './health.js';
import { RedisOptionChecks } from './option-checks.js';

/** Options of {@link redisEventBus}. Give `url` or `client`. */
export interface RedisEventBusOptions {
  /** `redis://[user:password@]host:port[/db]`: the bus makes (and closes) its own clients. */
  readonly url?: string;
  /**
   * A node-redis v6 client (or an adapter, see `RedisClientLike`), connected or not: used to append events;
   * the bus reads on its own `client.duplicate()`. The bus never closes it.
   */
  readonly client?: RedisClientLike;
  /** Stream key. Replicas of one server share it; different servers on one Redis need different keys. Default `pier:events`. */
  readonly stream?: string;
  /** Entries kept in the stream (approximately): how far behind a replica may fall and still replay. Default 10,000. */
  readonly maxLength?: number;
  /** Events kept in memory while Redis is unreachable, sent when it is back; beyond it the oldest go. Default 1,000. */
  readonly maxQueued?: number;
  /** How long one `XREAD` blocks (keep it under a passed client's command timeout: node-redis's default is 5 s). Default 1,000 ms. */
  readonly blockMs?: number;
  /** This replica's id, written with every event so that it skips its own. Default: a random UUID. */
  readonly nodeId?: string;
  /**
   * Called when events of other replicas may have been lost (see {@link RedisGap}), after the bus told its
   * listeners that every list changed and re-announced the resource URIs it saw recently. Re-announce here
   * the resources that may have changed.
   */
  readonly onGap?: (gap: RedisGap) => void;
  /** Errors the bus cannot throw (publish and read failures, a gap); each is a {@link PierRedisError}. Default: none. */
  readonly onerror?: (error: PierRedisError) => void;
}

/** Why events may have been missed. */
export interface RedisGap {
  /** `history-lost`: Redis restarted or trimmed the stream past this replica; `queue-overflow`: a replica dropped events it could not send. */
  readonly reason: 'history-lost' | 'queue-overflow';
}

/** The bus: the SDK's `ServerEventBus`, plus readiness, a health check and `close`. */
export interface RedisEventBus extends EventBus {
  /** This replica's id on the bus. */
  readonly nodeId: string;
  /** Resolves once the bus reads the stream and can write to it: events published by others from then on arrive. Never rejects. */
  readonly ready: Promise<void>;
  /** Whether the bus is connected for both reading and writing right now. */
  readonly connected: boolean;
  /** Events waiting in memory for Redis to come back. */
  readonly queued: number;
  /**
   * Resolves once every event published so far was written to Redis's connection (not yet acknowledged),
   * at once while Redis is away or the bus is closed, after at most 250 ms behind a write Redis has not
   * acknowledged yet. Never rejects. `notifyResourceUpdated` awaits it.
   */
  flush(): Promise<void>;
  /** A `redis` check for `healthPlugin`, non-critical unless asked: a Redis outage degrades, never fails, readiness. */
  healthCheck(options?: RedisHealthCheckOptions): RedisHealthCheck;
  /** Stops reading, closes the clients the bus made. Idempotent. */
  close(): Promise<void>;
}

const VERSION = '1';
const RECENT_URIS = 1_000;
/** The longest `flush` waits for events queued behind a write that Redis has not acknowledged yet. */
const FLUSH_WAIT_MS = 250;
/** The most events sent in one write. */
const FLUSH_BATCH = 256;

/**
 * Makes the Redis event bus. Pass the same options to every replica and the bus to `createServer`:
 *
 * @example
 * ```ts
 * const bus = redisEventBus({ url: process.env.REDIS_URL });
 * const server = createServer(MyServer, { eventBus: bus, plugins: [healthPlugin({ checks: [bus.healthCheck()] })] });
 * await bus.ready;
 * await server.listen(httpTransport({ port: 3000 }));
 * ```
 */
export function redisEventBus(options: RedisEventBusOptions): RedisEventBus {
  const resolved = resolveOptions(options);
  return new StreamEventBus(resolved);
}

type Resolved = Required<Omit<RedisEventBusOptions, 'url' | 'client' | 'onGap' | 'onerror'>> &
  Pick<RedisEventBusOptions, 'url' | 'client' | 'onGap' | 'onerror'>;

class StreamEventBus implements RedisEventBus {
  readonly nodeId: string;
  readonly ready: Promise<void>;
  readonly #options: Resolved;
  readonly #local: InMemoryServerEventBus;
  readonly #queue: string[] = [];
  /** Resource URIs seen lately, re-announced after a gap (an update is a hint: a spurious one costs a re-read). */
  readonly #recentUris = new Set<string>();
  /** `flush` callers waiting for the queue to be handed to the writer (resolved a write turn later). */
  #handedOff: (() => void)[] = [];
  /** Releases every waiting `flush` call after {@link FLUSH_WAIT_MS}: one timer for all of them. */
  #handedOffTimer: ReturnType<typeof setTimeout> | undefined;
  #writer: RedisClientLike | undefined;
  #reader: RedisClientLike | undefined;
  #ownsWriter = false;
  #overflowed = false;
  #flushing = false;
  /** Events written to Redis and not acknowledged yet (out of the queue, back in it if the write fails). */
  #sending = 0;
  #readerUp = false;
  #closed = false;
  #markReady!: () => void;
  #loop: Promise<void> | undefined;

  constructor(options: Resolved) {
    this.#options = options;
    this.nodeId = options.nodeId;
    this.#local = new InMemoryServerEventBus((error) =>
      this.#report(new PierRedisError('REDIS_PUBLISH_FAILED', `a listener failed: ${messageOf(error)}`)),
    );
    this.ready = new Promise((resolve) => {
      this.#markReady = resolve;
    });
    this.#loop = this.#start();
  }

  get connected(): boolean {
    return this.#readerUp && this.#writer?.isReady === true;
  }

  get queued(): number {
    return this.#queue.length + this.#sending;
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.#local.subscribe(listener);
  }

  /** Delivers locally at once, then appends to the stream (or queues while Redis is away). Never throws. */
  publish(event: BusEvent): void {
    let payload: string | undefined;
    try {
      payload = JSON.stringify({ v: VERSION, o: this.nodeId, e: event });
    } catch (error) {
      this.#report(new PierRedisError('REDIS_PUBLISH_FAILED', `event not serializable: ${messageOf(error)}`));
    }
    try {
      this.#local.publish(event);
    } catch (error) {
      this.#report(new PierRedisError('REDIS_PUBLISH_FAILED', `local delivery failed: ${messageOf(error)}`));
    }
    if (payload === undefined || this.#closed) return;
    this.#enqueue(payload);
    this.#flush();
  }

  /**
   * Resolves once every event published so far was written to Redis's connection (not yet acknowledged),
   * at once while Redis is away (the events wait in the queue) or the bus is closed, and after at most
   * 250 ms behind a write Redis has not acknowledged yet. Core awaits
   * it in `notifyResourceUpdated`: a tool that awaits that answers after its event left, not before, so the
   * event does not wait behind the answer for node-redis's next write turn.
   */
  flush(): Promise<void> {
    if (this.#closed || this.#writer?.isReady !== true) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.#queue.length === 0) {
        // Handed to node-redis already, which writes on its own `setImmediate`, queued before this one.
        setImmediate(resolve);
      } else {
        // Behind a write still waiting for Redis's acknowledgement: bounded, a slow Redis never holds a
        // tool's answer for long.
        this.#handedOff.push(resolve);
        // One timer for every caller waiting (not one each: a burst of flushes would leave a 250 ms timer
        // per event behind, outliving the young generation).
        this.#handedOffTimer ??= setTimeout(() => {
          this.#handedOffTimer = undefined;
          this.#release();
        }, FLUSH_WAIT_MS).unref();
      }
    });
  }

  healthCheck(options: RedisHealthCheckOptions = {}): RedisHealthCheck {
    return redisHealthCheck(() => this.#writer, {
      ...options,
      describe: () => ({
        reading: this.#readerUp,
        queued: this.queued,
      }),
      extraUnhealthy: () => (this.#readerUp ? undefined : 'not reading the event stream'),
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return this.#loop;
    this.#closed = true;
    this.#queue.length = 0;
    this.#release();
    // destroy() fails the blocking XREAD at once; close() would wait for it.
    try {
      this.#reader?.destroy();
    } catch {}
    await this.#loop?.catch(() => undefined);
    if (this.#ownsWriter && this.#writer !== undefined) {
      await Promise.resolve(this.#writer.isOpen ? this.#writer.close() : undefined).catch(() =>
        this.#writer?.destroy(),
      );
    }
  }

  async #start(): Promise<void> {
    try {
      if (this.#options.client !== undefined) {
        this.#writer = this.#options.client;
      } else {
        this.#writer = await createRedisClient(this.#options.url as string);
        this.#ownsWriter = true;
      }
    } catch (error) {
      this.#report(
        error instanceof PierRedisError
          ? error
          : new PierRedisError('REDIS_OPTIONS_INVALID', messageOf(error), { cause: error }),
      );
      return;
    }
    const writer = this.#writer;
    writer.on('error', () => {
      // Reported by the reader (once per outage); without a listener node-redis would crash the process.
    });
    writer.on('ready', () => {
      if (this.#readerUp) this.#markReady();
      this.#flush();
    });
    // The reader blocks in XREAD: it needs its own connection. Offline queue off: a read while disconnected
    // fails at once, which is how the loop learns to check for a gap.
    const reader = writer.duplicate({ disableOfflineQueue: true });
    this.#reader = reader;
    reader.on('error', () => {});
    if (this.#closed) return;
    if (!writer.isOpen) writer.connect().catch(() => undefined);
    reader.connect().catch(() => undefined);
    await this.#read(reader);
  }

  async #read(reader: RedisClientLike): Promise<void> {
    const { stream, blockMs } = this.#options;
    let lastId: string | undefined;
    let checkGap = false;
    let failures = 0;
    let reported = false;
    while (!this.#closed) {
      try {
        // Still (re)connecting: wait quietly rather than fail a command.
        if (!reader.isReady) throw new Error('not connected');
        if (lastId === undefined) {
          // Start after the newest entry: nothing published before this replica existed is delivered.
          lastId = entriesOf(await reader.xRevRange(stream, '+', '-', { COUNT: 1 }))[0]?.id ?? '0-0';
        } else if (checkGap) {
          // Our last entry still there: everything after it is too, and XREAD replays it. Gone: Redis
          // restarted or trimmed past us, and what was between is lost.
          const still = entriesOf(await reader.xRange(stream, lastId, lastId));
          if (still.length === 0 && lastId !== '0-0') this.#gap('history-lost');
        }
        checkGap = false;
        this.#readerUp = true;
        failures = 0;
        reported = false;
        if (this.#writer?.isReady) this.#markReady();
        const entries = entriesOf(
          await reader.xRead({ key: stream, id: lastId }, { BLOCK: blockMs, COUNT: 512 }),
        );
        for (const entry of entries) {
          lastId = entry.id;
          this.#receive(entry.message);
        }
      } catch (error) {
        if (this.#closed) break;
        // Once per outage, and not for the first second of a connection being made.
        if (!reported && (this.#readerUp || failures >= 5)) {
          reported = true;
          this.#report(
            new PierRedisError('REDIS_READ_FAILED', `event stream unreadable: ${messageOf(error)}`, {
              cause: error,
            }),
          );
        }
        this.#readerUp = false;
        checkGap = lastId !== undefined;
        failures++;
        await sleep(Math.min(25 * 2 ** Math.min(failures, 6), 1_000));
      }
    }
    this.#readerUp = false;
  }

  #receive(message: Readonly<Record<string, string>>): void {
    const raw = message.m;
    if (raw === undefined) return;
    let parsed: { v?: unknown; o?: unknown; e?: unknown; gap?: unknown };
    try {
      parsed = JSON.parse(raw);
    } catch {
      return;
    }
    if (parsed.v !== VERSION || parsed.o === this.nodeId) return;
    if (parsed.gap === 'queue-overflow') {
      this.#gap('queue-overflow');
      return;
    }
    const event = parsed.e as BusEvent | undefined;
    if (!isBusEvent(event)) return;
    if (event.kind === 'resource_updated') this.#remember(event.uri);
    this.#local.publish(event);
  }

  #enqueue(payload: string): void {
    this.#queue.push(payload);
    this.#bound();
  }

  /** Drops the oldest waiting events beyond `maxQueued` (and tells other replicas, once Redis is back). */
  #bound(): void {
    const { maxQueued } = this.#options;
    if (this.#queue.length > maxQueued) {
      this.#queue.splice(0, this.#queue.length - maxQueued);
      if (!this.#overflowed) {
        this.#overflowed = true;
        this.#report(
          new PierRedisError(
            'REDIS_QUEUE_FULL',
            `Redis unreachable: more than ${maxQueued} events waiting, the oldest were dropped (other replicas will be told to re-read)`,
          ),
        );
      }
    }
  }

  /** Sends queued events in order, pipelined, while the writer is up. */
  #flush(): void {
    const writer = this.#writer;
    if (this.#flushing || this.#closed || writer === undefined || !writer.isReady) return;
    if (this.#queue.length === 0 && !this.#overflowed) return;
    this.#flushing = true;
    const { stream, maxLength } = this.#options;
    const trim = {
      TRIM: { strategy: 'MAXLEN' as const, strategyModifier: '~' as const, threshold: maxLength },
    };
    void (async () => {
      try {
        if (this.#overflowed) {
          await writer.xAdd(
            stream,
            '*',
            { m: JSON.stringify({ v: VERSION, o: this.nodeId, gap: 'queue-overflow' }) },
            trim,
          );
          this.#overflowed = false;
        }
        while (this.#queue.length > 0 && !this.#closed) {
          // Everything waiting goes out in one write (node-redis pipelines the XADDs on one connection, in
          // order): events raised together cost one round trip, not one each.
          const batch = this.#queue.splice(0, FLUSH_BATCH);
          this.#sending = batch.length;
          const settled = Promise.allSettled(batch.map((m) => writer.xAdd(stream, '*', { m }, trim)));
          if (this.#queue.length === 0) this.#release();
          const written = await settled;
          this.#sending = 0;
          const failed = batch.filter((_, index) => written[index]?.status === 'rejected');
          if (failed.length > 0) {
            // Kept until written: retried, first in line, when the writer is ready again.
            if (!this.#closed) {
              this.#queue.unshift(...failed);
              this.#bound();
            }
            throw (written.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason;
          }
        }
      } catch (error) {
        this.#report(
          new PierRedisError('REDIS_PUBLISH_FAILED', `event not written: ${messageOf(error)}`, {
            cause: error,
          }),
        );
      } finally {
        this.#flushing = false;
        // Whatever is still queued now waits for Redis: nobody waits for it.
        if (!writer.isReady || this.#closed) this.#release();
      }
      // More may have arrived while we wrote; a failure waits for the writer's next `ready`.
      if (writer.isReady && this.#queue.length > 0) this.#flush();
    })();
  }

  /** Resolves the waiting `flush` calls one write turn from now (node-redis writes on `setImmediate`). */
  #release(): void {
    if (this.#handedOffTimer !== undefined) {
      clearTimeout(this.#handedOffTimer);
      this.#handedOffTimer = undefined;
    }
    if (this.#handedOff.length === 0) return;
    const waiting = this.#handedOff;
    this.#handedOff = [];
    setImmediate(() => {
      for (const resolve of waiting) resolve();
    });
  }

  /** Tells local listeners that anything may have changed: every list, and the URIs seen lately. */
  #gap(reason: RedisGap['reason']): void {
    this.#report(
      new PierRedisError(
        'REDIS_EVENTS_LOST',
        reason === 'history-lost'
          ? 'events of other replicas were lost while Redis was unreachable (restarted or trimmed); listeners were told to re-read'
          : 'another replica dropped events while Redis was unreachable; listeners were told to re-read',
      ),
    );
    for (const kind of ['tools_list_changed', 'prompts_list_changed', 'resources_list_changed'] as const) {
      this.#local.publish({ kind });
    }
    for (const uri of this.#recentUris) this.#local.publish({ kind: 'resource_updated', uri });
    try {
      this.#options.onGap?.({ reason });
    } catch {}
  }

  #remember(uri: string): void {
    this.#recentUris.delete(uri);
    this.#recentUris.add(uri);
    if (this.#recentUris.size > RECENT_URIS) {
      const oldest = this.#recentUris.values().next().value;
      if (oldest !== undefined) this.#recentUris.delete(oldest);
    }
  }

  #report(error: PierRedisError): void {
    try {
      this.#options.onerror?.(error);
    } catch {}
  }
}

function isBusEvent(value: unknown): value is BusEvent {
  if (value === null || typeof value !== 'object') return false;
  const { kind, uri } = value as { kind?: unknown; uri?: unknown };
  if (kind === 'resource_updated') return typeof uri === 'string';
  return (
    kind === 'tools_list_changed' || kind === 'prompts_list_changed' || kind === 'resources_list_changed'
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function resolveOptions(options: RedisEventBusOptions): Resolved {
  const checks = new RedisOptionChecks('redisEventBus', options, [
    'duplicate',
    'xAdd',
    'xRead',
    'xRange',
    'xRevRange',
    'ping',
    'on',
  ]);
  const { url, client } = options;
  checks.callback('onGap', options.onGap);
  checks.callback('onerror', options.onerror);
  const resolved: Resolved = {
    ...(url !== undefined && { url }),
    ...(client !== undefined && { client }),
    stream: checks.text('stream', options.stream, 'pier:events'),
    maxLength: checks.int('maxLength', options.maxLength, 10_000, 1),
    maxQueued: checks.int('maxQueued', options.maxQueued, 1_000, 0),
    blockMs: checks.int('blockMs', options.blockMs, 1_000, 1),
    nodeId: checks.text('nodeId', options.nodeId, randomUUID()),
    ...(options.onGap !== undefined && { onGap: options.onGap }),
    ...(options.onerror !== undefined && { onerror: options.onerror }),
  };
  if (resolved.blockMs >= 5_000)
    checks.add('blockMs must be below 5000 (node-redis fails commands after 5 s)');
  checks.done();
  return resolved;
}
