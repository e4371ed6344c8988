// Through core's public API, as a user writes it: createServer(Class).listen({ transport: 'streamable-http' }).
// Core loads this package with a dynamic import, so this needs the package built (dist/).
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  createServer,
  defineResource,
  defineServer,
  MCPServer,
  type PierPlugin,
  type PierServer,
  Tool,
} from '@pier/core';
import { closeAll, connect } from '@pier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ask } from './test-http.js';

const readiness: PierPlugin = {
  name: 'readiness',
  setup(ctx) {
    ctx.addRoute({
      method: 'GET',
      path: '/ready',
      handler: () => Response.json({ state: ctx.state }, { status: ctx.state === 'ready' ? 200 : 503 }),
    });
  },
};

@MCPServer({ name: 'weather', version: '1.0.0', plugins: [readiness] })
class WeatherServer {
  @Tool({ description: 'Forecast for a city', input: { city: z.string() } })
  async forecast({ city }: { city: string }) {
    return `Sunny in ${city}`;
  }
}

let server: PierServer | undefined;
afterEach(async () => {
  await closeAll();
  await server?.close();
  server = undefined;
});

function start(): PierServer {
  const lines: string[] = [];
  server = createServer(WeatherServer, undefined, {
    handleSignals: false,
    logStream: { write: (line: string) => lines.push(line) },
  });
  Object.assign(server, { lines });
  return server;
}

describe('createServer(Class).listen({ transport: "streamable-http" })', () => {
  it.each([false, true])('serves both eras and plugin routes (sessions: %s)', async (sessions) => {
    const pier = start();
    const address = await pier.listen({ transport: 'streamable-http', port: 0, sessions });
    expect(address).toMatchObject({ transport: 'streamable-http', host: '127.0.0.1' });
    expect(address.url).toBe(`http://127.0.0.1:${address.port}/mcp`);

    for (const era of ['auto', '2025-11-25'] as const) {
      const { client } = await connect(address.url, { era });
      const result = await client.callTool({ name: 'forecast', arguments: { city: 'Lisbon' } });
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'Sunny in Lisbon' }] });
      await client.close();
    }
    const v1 = new V1Client({ name: 'it-v1', version: '1.0.0' });
    await v1.connect(new V1Transport(new URL(address.url)));
    expect((await v1.listTools()).tools.map((tool) => tool.name)).toEqual(['forecast']);
    await v1.close();

    expect((await ask(address.url, { method: 'GET', path: '/ready' })).status).toBe(200);
    expect((await ask(address.url, { method: 'HEAD', path: '/ready' })).status).toBe(200);
  });

  it('logs the URL to stderr, turns readiness off while draining, then stops listening', async () => {
    const pier = start();
    const address = await pier.listen({ transport: 'streamable-http', port: 0 });
    const lines = (pier as unknown as { lines: string[] }).lines;
    // Exactly one line carries the URL: core's, in the format it uses for stdio too.
    expect(lines.filter((line) => line.includes(address.url))).toEqual([
      expect.stringMatching(
        / INFO {2}\[weather\] listening transport=streamable-http url=http:\/\/127\.0\.0\.1:\d+\/mcp\n$/,
      ),
    ]);

    const closing = pier.close({ drainDelayMs: 2_000 });
    const ready = await ask(address.url, { method: 'GET', path: '/ready' });
    expect(ready).toMatchObject({ status: 503, json: { state: 'draining' } });
    await closing;
    await expect(ask(address.url, { method: 'GET', path: '/ready' })).rejects.toThrow(/ECONNREFUSED/);
  }, 15_000);
});

describe('resource updates over streamable HTTP', () => {
  function startWatched(): PierServer {
    server = createServer(
      defineServer({
        name: 'watched',
        version: '1.0.0',
        resources: [
          defineResource({ name: 'status', uri: 'app://status', subscribable: true, handler: () => 'up' }),
          defineResource({ name: 'other', uri: 'app://other', subscribable: true, handler: () => 'x' }),
        ],
      }),
      { handleSignals: false, logStream: { write: () => true } },
    );
    return server;
  }

  async function connectClient(url: string, mode: 'auto' | 'legacy') {
    const { client } = await connect(url, { era: mode === 'auto' ? 'auto' : '2025-11-25' });
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params.uri);
    });
    return { client, updates };
  }

  it.each([false, true])(
    'reach a 2026-07-28 client on its subscriptions/listen stream, filtered by URI (sessions: %s)',
    async (sessions) => {
      const pier = startWatched();
      const { url } = await pier.listen({ transport: 'streamable-http', port: 0, sessions });
      const { client, updates } = await connectClient(url, 'auto');
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const subscription = await client.listen({ resourceSubscriptions: ['app://status'] });
      await pier.notifyResourceUpdated('app://other');
      await pier.notifyResourceUpdated('app://status');
      await until(() => updates.length > 0);
      expect(updates).toEqual(['app://status']);
      await subscription.close();
      await client.close();
    },
  );

  it('stateless: a 2025-era client is not offered subscriptions it could never receive', async () => {
    const pier = startWatched();
    const { url } = await pier.listen({ transport: 'streamable-http', port: 0 });
    const { client } = await connectClient(url, 'legacy');
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: false });
    await expect(client.subscribeResource({ uri: 'app://status' })).rejects.toMatchObject({ code: -32600 });
    await client.close();
  });

  it('sessions: a 2025-era client subscribes and hears about that URI on its session', async () => {
    const pier = startWatched();
    const { url } = await pier.listen({ transport: 'streamable-http', port: 0, sessions: true });
    const { client, updates } = await connectClient(url, 'legacy');
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    await client.subscribeResource({ uri: 'app://status' });
    await pier.notifyResourceUpdated('app://other');
    await pier.notifyResourceUpdated('app://status');
    await until(() => updates.length > 0);
    expect(updates).toEqual(['app://status']);
    await client.close();
  });
});

/** Resolves once `check` holds (polled every 5 ms); fails after 5 s. */
async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 5) {
    if (waited > 5_000) throw new Error('timed out waiting for the update');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
