import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyRequest } from './web.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A node:http server on 127.0.0.1 whose handler is the test's; resolves with its base URL. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('lazyRequest', () => {
  it('answers method and headers from node, and behaves as the real Request for the rest', async () => {
    let seen: Record<string, unknown> = {};
    const base = await serve((req, res) => {
      const web = lazyRequest(req, 'http://fallback.invalid', res);
      seen = {
        isRequest: web instanceof Request,
        method: web.method,
        header: web.headers.get('x-pier-test'),
        // Hop-by-hop and framing headers are node's business, not the SDK's.
        contentLength: web.headers.get('content-length'),
        query: new URL(web.url).searchParams.get('x'),
        hasSignal: 'signal' in web,
        aborted: web.signal.aborted,
        clonedMethod: web.clone().method,
      };
      res.end('ok');
    });
    const response = await fetch(`${base}/mcp?x=1`, {
      method: 'POST',
      headers: { 'x-pier-test': 'yes', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await response.text()).toBe('ok');
    expect(seen).toEqual({
      isRequest: true,
      method: 'POST',
      header: 'yes',
      contentLength: null,
      query: '1',
      hasSignal: true,
      aborted: false,
      clonedMethod: 'POST',
    });
  });

  it('gives headers that read as a real Headers of the same request does, by every method', async () => {
    let seen: Record<string, unknown> = {};
    const base = await serve((req, res) => {
      const lazy = () => lazyRequest(req, 'http://fallback.invalid', res).headers;
      const real = new Request(`${base}/mcp`, { method: 'POST', headers: lazy() }).headers;
      const headers = lazy();
      const reads = (h: Headers) => ({
        get: ['X-Pier-Test', 'x-repeated', 'accept', 'content-length', 'connection', 'x-absent'].map((n) =>
          h.get(n),
        ),
        has: ['x-pier-test', 'transfer-encoding', 'x-absent'].map((n) => h.has(n)),
        invalid: (() => {
          try {
            return h.get('bad name');
          } catch (error) {
            return (error as Error).name;
          }
        })(),
      });
      const changed = lazy();
      changed.set('x-pier-test', 'changed');
      changed.append('x-added', '1');
      changed.delete('accept');
      const visited: string[] = [];
      lazy().forEach((value, key, parent) => {
        if (parent instanceof Headers) visited.push(`${key}=${value}`);
      });
      seen = {
        instance: headers instanceof Headers,
        lazy: reads(headers),
        real: reads(real),
        entries: [...lazy()],
        realEntries: [...real],
        keys: [...lazy().keys()].join(),
        copied: Object.fromEntries(new Headers(lazy())),
        visited: visited.length === [...real].length,
        changed: [changed.get('x-pier-test'), changed.get('x-added'), changed.has('accept')],
        // The change stays on that one object: node's request is untouched.
        node: req.headers['x-pier-test'],
        inspected: inspect(lazy()),
      };
      res.end('ok');
    });
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: [
        ['x-pier-test', 'yes'],
        ['x-repeated', 'a'],
        ['x-repeated', 'b'],
        ['accept', 'application/json'],
        ['content-type', 'application/json'],
      ],
      body: '{}',
    });
    expect(await response.text()).toBe('ok');
    expect(seen.instance).toBe(true);
    expect(seen.lazy).toEqual(seen.real);
    expect(seen.lazy).toEqual({
      get: ['yes', 'a, b', 'application/json', null, null, null],
      has: [true, false, false],
      invalid: 'TypeError',
    });
    expect(seen.entries).toEqual(seen.realEntries);
    expect(seen.keys).toBe((seen.realEntries as [string, string][]).map(([key]) => key).join());
    expect(seen.copied).toEqual(Object.fromEntries(seen.realEntries as [string, string][]));
    expect(seen.visited).toBe(true);
    expect(seen.changed).toEqual(['changed', '1', false]);
    expect(seen.node).toBe('yes');
    expect(seen.inspected).toMatch(/^Headers {[\s\S]*'x-pier-test': 'yes'/);
  });

  it('aborts its signal when the client goes away before the answer, not after it', async () => {
    const signals: AbortSignal[] = [];
    let arrived: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const base = await serve((req, res) => {
      const web = lazyRequest(req, 'http://fallback.invalid', res);
      signals.push(web.signal);
      if (req.url === '/answered') res.end('ok');
      else arrived();
    });
    expect(await (await fetch(`${base}/answered`)).text()).toBe('ok');

    const pending = request(`${base}/left`);
    pending.on('error', () => {});
    pending.end();
    await first;
    const [answered, left] = signals;
    const aborted = new Promise<void>((resolve) => left?.addEventListener('abort', () => resolve()));
    pending.destroy();
    await aborted;
    expect(left?.aborted).toBe(true);
    expect(answered?.aborted).toBe(false);
  });
});
