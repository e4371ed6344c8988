// Node's side of request bodies: read under a limit, `Expect: 100-continue`, and a 413 that the client gets
// to read (the rest of the body discarded first).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BodyRead, DISCARD_LIMIT_BYTES, type HeaderMap } from './exchange.js';

type BodyResult = BodyRead;

const TOO_LARGE: BodyResult = { ok: false, reason: 'too-large' };
const ABORTED: BodyResult = { ok: false, reason: 'aborted' };

/**
 * Reads the body as UTF-8 text, holding at most `limit` bytes, and hands it to `onRead` once: a declared
 * `Content-Length` over the limit is refused before anything is read (at once), and a body sent without
 * one is refused as soon as it passes the limit. A body read to its end is handed over in its `end` event:
 * no promise (each is one more per request, and runs every async hook the process has).
 */
export function readBody(req: IncomingMessage, limit: number, onRead: (read: BodyResult) => void): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    onRead(TOO_LARGE);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  /** A refusal stops listening at once (someone else may read or discard the rest), and is told after. */
  const stop = (result: BodyResult) => {
    if (settled) return;
    settled = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onAbort);
    req.off('close', onAbort);
    queueMicrotask(() => onRead(result));
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      req.pause();
      stop(TOO_LARGE);
      return;
    }
    chunks.push(chunk);
  };
  // A body read to its end leaves the listeners where they are (four removals less per request): no
  // more `data` or `end` can come, and a later `close` (or `error`) finds the read settled.
  const onEnd = () => {
    if (settled) return;
    settled = true;
    const first = chunks[0];
    const text =
      chunks.length === 1 && first !== undefined
        ? first.toString('utf8')
        : Buffer.concat(chunks, size).toString('utf8');
    onRead({ ok: true, text });
  };
  const onAbort = () => stop(ABORTED);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onAbort);
  req.on('close', onAbort);
}

const NO_CONTINUE = Symbol('pier.noContinue');

/**
 * Handles `Expect: 100-continue` (curl sends it for bodies over 1 MiB): a declared body over `limit` is
 * refused before the client sends it; any other request is told to continue. Node would otherwise let
 * every body in first.
 */
export function continueOrRefuse(req: IncomingMessage, res: ServerResponse, limit: number): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    (req as IncomingMessage & { [NO_CONTINUE]?: true })[NO_CONTINUE] = true;
  } else {
    res.writeContinue();
  }
}

/** Whether the client still waits for `100 Continue` before sending its body (it never will get it). */
function awaitsContinue(req: IncomingMessage): boolean {
  return (req as IncomingMessage & { [NO_CONTINUE]?: true })[NO_CONTINUE] === true;
}

/**
 * Answers 413 with a JSON-RPC error right away, then keeps reading and discarding the rest of the body
 * (up to {@link DISCARD_LIMIT_BYTES}) before the connection closes. Closing with unread bytes in flight
 * makes the peer's TCP stack reset the connection, and many clients then report the reset instead of the
 * answer they were sent.
 */
export function refuseOversizedBody(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  headers: HeaderMap,
): void {
  res.writeHead(413, Object.assign({}, headers, { connection: 'close' }));
  // Written but not ended: ending now would close the socket while the client is still sending.
  res.write(body);
  if (req.readableEnded || req.destroyed || awaitsContinue(req)) {
    res.end();
    return;
  }
  let discarded = 0;
  const finish = () => {
    req.off('data', onData);
    req.off('end', finish);
    req.off('close', finish);
    req.off('error', finish);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) {
      finish();
      req.destroy();
    }
  };
  req.on('data', onData);
  req.on('end', finish);
  req.on('close', finish);
  req.on('error', finish);
  req.resume();
}
