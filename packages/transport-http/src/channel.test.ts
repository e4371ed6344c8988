import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Channel, SSE_KEEP_ALIVE_MS } from './channel.js';
import { ExchangeTracker } from './exchange.js';
import { MAX_BUFFERED_BYTES, NodeExchange } from './node-exchange.js';

/** Just enough of a ServerResponse to watch what a channel writes. */
class FakeResponse extends EventEmitter {
  status = 0;
  headers: Record<string, string> = {};
  written = '';
  ended = false;
  destroyed = false;
  writableLength = 0;
  get headersSent() {
    return this.status !== 0;
  }
  get writableEnded() {
    return this.ended;
  }
  get writableFinished() {
    return this.ended;
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
  writeHead(status: number, headers: Record<string, string>) {
    this.status = status;
    this.headers = headers;
  }
  flushHeaders() {}
  socket = { cork() {}, uncork() {} };
  write(chunk: string) {
    this.written += chunk;
    return true;
  }
  end(chunk?: string) {
    if (chunk !== undefined) this.written += chunk;
    this.ended = true;
    this.emit('close');
  }
}

function channel(onDisconnect = () => {}) {
  const res = new FakeResponse();
  const req = { method: 'POST', url: '/mcp', headers: {} } as unknown as IncomingMessage;
  const exchange = new NodeExchange(req, res as unknown as ServerResponse, new ExchangeTracker());
  const created = new Channel(exchange, { 'mcp-session-id': 's' }, onDisconnect);
  return { res, exchange, channel: created };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Channel', () => {
  it('answers with one JSON body when nothing was streamed', () => {
    const { res, channel: c } = channel();
    c.json(200, '{"ok":true}');
    expect(res).toMatchObject({ status: 200, written: '{"ok":true}', ended: true });
    expect(res.headers).toEqual({
      'mcp-session-id': 's',
      'content-type': 'application/json',
      'content-length': '11',
    });
  });

  it('becomes an SSE stream on the first event, then writes events and ends', () => {
    const { res, channel: c } = channel();
    c.event('{"n":1}');
    c.event('{"n":2}', 'stream:2');
    c.end();
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.written).toBe(
      'event: message\ndata: {"n":1}\n\nevent: message\nid: stream:2\ndata: {"n":2}\n\n',
    );
    expect(res.ended).toBe(true);
  });

  it('sends events that come before the answer in the same turn with it, as one body with its length', () => {
    vi.useFakeTimers();
    const { res, channel: c } = channel();
    c.event('{"n":1}');
    c.event('{"n":2}');
    expect(res.status).toBe(0);
    c.end();
    const body = 'event: message\ndata: {"n":1}\n\nevent: message\ndata: {"n":2}\n\n';
    expect(res).toMatchObject({ status: 200, written: body, ended: true });
    expect(res.headers).toMatchObject({
      'mcp-session-id': 's',
      'content-type': 'text/event-stream',
      'content-length': String(body.length),
    });
    vi.runAllTimers();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('starts the stream with the held events once the turn ends without an answer', () => {
    vi.useFakeTimers();
    const { res, channel: c } = channel();
    c.event('{"n":1}');
    expect(c.streaming).toBe(true);
    expect(() => c.json(200, '{}')).toThrow();
    vi.advanceTimersToNextTimer();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.written).toBe('event: message\ndata: {"n":1}\n\n');
    c.event('{"n":2}');
    expect(res.written).toBe('event: message\ndata: {"n":1}\n\nevent: message\ndata: {"n":2}\n\n');
    c.end();
    expect(res.ended).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends a keep-alive comment every 15 s while streaming, and stops when ended', () => {
    vi.useFakeTimers();
    const { res, channel: c } = channel();
    c.stream();
    expect(SSE_KEEP_ALIVE_MS).toBeLessThanOrEqual(15_000);
    vi.advanceTimersByTime(SSE_KEEP_ALIVE_MS * 3);
    expect(res.written).toBe(': keepalive\n\n'.repeat(3));
    c.end();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('primes a resumable stream with an id, an optional retry and empty data', () => {
    const { res, channel: c } = channel();
    c.prime('s:1', 500);
    expect(res.written).toBe('id: s:1\nretry: 500\ndata: \n\n');
  });

  it('cuts a stream whose client stopped reading once too much is buffered', () => {
    let left = 0;
    const { res, channel: c } = channel(() => left++);
    c.stream();
    c.event('{"n":1}');
    expect(res.destroyed).toBe(false);
    res.writableLength = MAX_BUFFERED_BYTES + 1;
    c.event('{"n":2}');
    expect(res.destroyed).toBe(true);
    expect(left).toBe(1);
    expect(c.open).toBe(false);
  });

  it('tells the transport when the client leaves early, and lets the drain end it', () => {
    let left = 0;
    const { res, exchange } = channel(() => left++);
    expect(exchange.endStream).toEqual(expect.any(Function));
    res.emit('close');
    expect(left).toBe(1);
    expect(exchange.endStream).toBeUndefined();
  });
});
