// 2026-07-28 over HTTP: one stateless POST per message. A request is answered with one JSON body, or with an
// SSE stream once something has to be said before the answer (progress, a log message, the notifications of
// a `subscriptions/listen` stream); a notification is taken in and answered 202.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo, Envelope, Inbound, Message, TransportHost } from '@pier/core/transport';
import { abortedOnDisconnect, allHeaders, headerReader, writeAnswer } from './answers.js';
import { Channel } from './channel.js';
import type { Exchange, ExchangeTracker } from './drain.js';

/** Serves one 2026-07-28 message (already classified, with its envelope). */
export async function serveModern(
  host: TransportHost,
  tracker: ExchangeTracker,
  req: IncomingMessage,
  res: ServerResponse,
  message: { readonly method: string; readonly id?: unknown },
  envelope: Envelope | undefined,
  authInfo: AuthInfo | undefined,
  exchange: Exchange,
): Promise<void> {
  const isRequest = 'id' in message;
  const listen = isRequest && message.method === 'subscriptions/listen';
  // A listen stream stays open until the client leaves: shutdown ends it, never waits for it.
  if (listen) tracker.promote(exchange);
  let channel: Channel | undefined;
  let signal: AbortSignal | undefined;
  const send = (related: Message): void => {
    if (channel === undefined) {
      channel = new Channel(res, {}, exchange, () => {});
      if (listen && host.reportStream !== undefined) res.once('close', host.reportStream({ kind: 'listen' }));
    }
    channel.event(JSON.stringify(related));
  };
  const inbound: Inbound = {
    era: 'modern',
    envelope,
    headers: headerReader(req),
    allHeaders: allHeaders(req),
    authInfo,
    get signal() {
      signal ??= abortedOnDisconnect(res);
      return signal;
    },
    // A client that accepts no event stream gets the answer alone.
    send: acceptsEventStream(req) ? send : undefined,
    transport: 'http',
    remoteAddress: req.socket.remoteAddress,
  };
  const answered = host.engine.handle(message, inbound);
  if (!isRequest || answered === undefined) {
    if (!res.headersSent) {
      res.writeHead(202, { 'content-length': '0' });
      res.end();
    }
    return;
  }
  const answer = await answered;
  const stream = channel as Channel | undefined;
  if (stream !== undefined) {
    if (answer !== undefined) stream.event(JSON.stringify(answer.message));
    stream.end();
    return;
  }
  if (answer === undefined) {
    if (!res.writableEnded) res.end();
    return;
  }
  writeAnswer(res, answer);
}

/** Whether the client takes an SSE answer: it names `text/event-stream` (or anything), or no `Accept`. */
function acceptsEventStream(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return accept === undefined || accept.includes('text/event-stream') || accept.includes('*/*');
}
