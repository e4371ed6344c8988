// One client on a message transport (stdio, or the SDK's in-memory pair in tests): every message goes to
// the engine on one connection, whose era the first message decides, as the SDK's stdio entry decides it.
// Answers and related messages go back on the same transport as they are ready.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { UnsupportedProtocolVersionError } from '@modelcontextprotocol/server';
import { classifyEra } from '../engine/classify.js';
import type { Connection } from '../engine/connection.js';
import { ErrorCode, isJsonObject, type Message, MODERN_VERSION } from '../engine/wire.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../logger.js';
import type { TransportHost } from './host.js';

/** Options of {@link serveTransport}. */
export interface ServeTransportOptions {
  /** The transport's name for middleware and handlers (`ctx.transport`). Default `stdio`. */
  readonly name?: string;
  /** Called when the client ends the connection (the transport closed), not when Pier closes it. */
  readonly onEnd?: () => void;
}

/** A served transport. */
export interface ServedTransport {
  /** Resolves with how many requests are still unanswered: 0 once all were, more after `timeoutMs`. */
  answered(timeoutMs: number): Promise<number>;
  /** Closes the connection and the transport. */
  close(): Promise<void>;
}

/**
 * Serves one client on a message transport (the SDK's `Transport` interface: stdio, an in-memory pair),
 * started here, with `host`'s engine. Its era is decided by its first message.
 */
export async function serveTransport(
  host: TransportHost,
  transport: Transport,
  options: ServeTransportOptions = {},
): Promise<ServedTransport> {
  const { logger } = host;
  const engine = host.engine;
  const name = options.name ?? 'stdio';
  const write = (message: Message) => {
    transport.send(message as JSONRPCMessage).catch((error: unknown) => {
      logger.debug(`${name}: a message was not written`, { error: messageOf(error) });
    });
  };
  const connection = engine.connect({ send: write, transport: name }) as Connection;
  /** Requests received and not answered yet (a listen stream is not owed an answer). */
  const owed = new Set<Promise<unknown>>();
  let wake: (() => void) | undefined;
  let closing = false;

  // Handlers held in consts, then assigned: V8 allocates a function literal assigned straight to a property
  // in the old generation (scripts/check-structure.mjs, rule 4).
  const onmessage = (message: JSONRPCMessage) => {
    const answered = serveMessage(engine, connection, message, write, name, logger);
    if (answered === undefined) return;
    if ((message as { method?: unknown }).method === 'subscriptions/listen') return;
    owed.add(answered);
    answered.finally(() => {
      owed.delete(answered);
      if (owed.size === 0) wake?.();
    });
  };
  const onerror = (error: Error) => logger.warn(name, { error: error.message });
  const onclose = () => {
    connection.close();
    if (!closing) options.onEnd?.();
  };
  transport.onmessage = onmessage;
  transport.onerror = onerror;
  transport.onclose = onclose;
  await transport.start();

  return {
    answered(timeoutMs) {
      if (owed.size === 0) return Promise.resolve(0);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(owed.size), timeoutMs);
        wake = () => {
          clearTimeout(timer);
          resolve(0);
        };
      });
    },
    async close() {
      closing = true;
      connection.close();
      await transport.close();
    },
  };
}

/** Classifies one message on `connection` and hands it to the engine; resolves once it is answered. */
function serveMessage(
  engine: TransportHost['engine'],
  connection: Connection,
  message: JSONRPCMessage,
  write: (message: Message) => void,
  name: string,
  logger: Logger,
): Promise<void> | undefined {
  const isRequest =
    isJsonObject(message) && typeof (message as { method?: unknown }).method === 'string' && 'id' in message;
  const id = (message as { id?: string | number }).id ?? null;
  if (!('method' in message)) {
    // An answer to one of the server's requests.
    engine.handle(message, { era: connection.era ?? 'legacy', connection, send: write, transport: name });
    return undefined;
  }
  const classified = classifyEra({ body: message });
  if ('refused' in classified) {
    if (isRequest) write({ jsonrpc: '2.0', id, error: classified.refused.error });
    else logger.debug(`${name}: a notification was refused`, { error: classified.refused.error.message });
    return undefined;
  }
  let era = classified.era;
  // The first message decides the connection's era, as the SDK's stdio entry decides it.
  connection.era ??= era;
  if (connection.era === 'modern' && era === 'legacy') {
    if (!isRequest) return undefined;
    const method = (message as { method: string }).method;
    const error =
      method === 'initialize'
        ? new UnsupportedProtocolVersionError({
            supported: [MODERN_VERSION],
            requested: String(
              (message as { params?: { protocolVersion?: unknown } }).params?.protocolVersion ?? 'unknown',
            ),
          })
        : undefined;
    write({
      jsonrpc: '2.0',
      id,
      error:
        error === undefined
          ? {
              code: ErrorCode.InvalidParams,
              message:
                'Invalid _meta envelope: _meta: the per-request envelope is required on protocol revision 2026-07-28',
            }
          : { code: error.code, message: error.message, data: error.data },
    });
    return undefined;
  }
  // A 2025 connection serves whatever it is sent as 2025 traffic (the envelope is ignored).
  if (connection.era === 'legacy') era = 'legacy';
  const answer = engine.handle(message, {
    era,
    envelope: era === 'modern' && 'envelope' in classified ? classified.envelope : undefined,
    requestedVersion: 'requestedVersion' in classified ? classified.requestedVersion : undefined,
    connection,
    send: write,
    transport: name,
  });
  if (answer === undefined) return undefined;
  return answer.then(
    (settled) => {
      if (settled !== undefined) write(settled.message);
    },
    (error: unknown) => {
      logger.error(`${name}: a request crashed`, { error: messageOf(error) });
      write({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InternalError, message: 'Internal server error' },
      });
    },
  );
}
