// 2026-07-28 over HTTP: one stateless POST per message. A request is answered with one JSON body, or with an
// SSE stream once something has to be said before the answer (progress, a log message, the notifications of
// a `subscriptions/listen` stream); a notification is taken in and answered 202.
import type { Answer, AuthInfo, Envelope, Message, TransportHost } from '@pier/core/transport';
import { writeAnswer } from './answers.js';
import { Channel } from './channel.js';
import type { ExchangeTracker, HttpExchange } from './exchange.js';
import { HttpInbound } from './inbound.js';

/**
 * Serves one 2026-07-28 message (already classified, with its envelope). Nothing to wait for: the answer is
 * written when the engine has it, and a failure on the way is handed to `crashed` (a 500 if nothing was
 * sent yet).
 */
export function serveModern(
  host: TransportHost,
  tracker: ExchangeTracker,
  exchange: HttpExchange,
  message: { readonly method: string; readonly id?: unknown },
  envelope: Envelope | undefined,
  authInfo: AuthInfo | undefined,
  crashed: (exchange: HttpExchange, error: unknown) => void,
): void {
  const isRequest = 'id' in message;
  const listen = isRequest && message.method === 'subscriptions/listen';
  // A listen stream stays open until the client leaves: shutdown ends it, never waits for it.
  if (listen) tracker.promote(exchange);
  let channel: Channel | undefined;
  const send = (related: Message): void => {
    if (channel === undefined) {
      channel = new Channel(exchange, {}, () => {});
      if (listen && host.reportStream !== undefined) {
        const ended = host.reportStream({ kind: 'listen' });
        exchange.onClose(() => ended());
      }
    }
    channel.event(JSON.stringify(related));
  };
  // A client that accepts no event stream gets the answer alone.
  const sink = acceptsEventStream(exchange.header('accept')) ? send : undefined;
  const inbound = HttpInbound.modern(exchange, envelope, authInfo, sink);
  const answered = host.engine.handle(message, inbound);
  if (!isRequest || answered === undefined) {
    if (!exchange.headersSent) exchange.respond(202, { 'content-length': '0' }, '');
    return;
  }
  // One `then`, with its own failure path: no async function, no `catch` after it.
  const deliver = (answer: Answer | undefined): void => {
    try {
      const stream = channel as Channel | undefined;
      if (stream !== undefined) {
        if (answer !== undefined) stream.event(JSON.stringify(answer.message));
        stream.end();
        return;
      }
      if (answer === undefined) {
        exchange.end();
        return;
      }
      writeAnswer(exchange, answer);
    } catch (error) {
      crashed(exchange, error);
    }
  };
  answered.then(deliver, (error: unknown) => crashed(exchange, error));
}

/** Whether the client takes an SSE answer: it names `text/event-stream` (or anything), or no `Accept`. */
function acceptsEventStream(accept: string | undefined): boolean {
  return accept === undefined || accept.includes('text/event-stream') || accept.includes('*/*');
}
