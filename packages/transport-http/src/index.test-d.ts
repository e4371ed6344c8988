import type { PierTransport, RunningTransport, TransportHost } from '@pier/core/transport';
import { expectTypeOf, test } from 'vitest';
import type { HttpListenOptions, HttpTransportError, HttpTransportErrorCode } from './index.js';
import * as transport from './index.js';

test('httpTransport(options) is a transport listen() starts', () => {
  expectTypeOf(transport.httpTransport).parameter(0).toEqualTypeOf<HttpListenOptions | undefined>();
  expectTypeOf(transport.httpTransport).returns.toEqualTypeOf<PierTransport>();
  expectTypeOf(transport.startHttpTransport).parameter(0).toEqualTypeOf<TransportHost>();
  expectTypeOf(transport.startHttpTransport).returns.toEqualTypeOf<Promise<RunningTransport>>();
});

test('errors carry a stable code to branch on', () => {
  expectTypeOf<HttpTransportError['code']>().toEqualTypeOf<HttpTransportErrorCode>();
  expectTypeOf<HttpTransportErrorCode>().toEqualTypeOf<'HTTP_OPTIONS_INVALID' | 'HTTP_LISTEN_FAILED'>();
  expectTypeOf<HttpTransportError>().toMatchTypeOf<Error>();
});

test('options are checked at compile time', () => {
  // @ts-expect-error ports are numbers
  transport.httpTransport({ port: '3000' });
  // @ts-expect-error cors needs its origins
  transport.httpTransport({ cors: { maxAgeSeconds: 60 } });
});

test('a Pier server is what the handlers serve; the fetch handler is web-standard', async () => {
  const { createServer, defineServer } = await import('@pier/core');
  const { createFetchHandler } = await import('./fetch.js');
  const server = createServer(defineServer({ name: 'typed', version: '1.0.0' }));
  const handler = createFetchHandler(server, { basePath: '/api' });
  expectTypeOf(handler.fetch).toEqualTypeOf<(request: Request) => Promise<Response>>();
  expectTypeOf(handler.handle).returns.toEqualTypeOf<Promise<Response | undefined>>();
  const node = transport.createNodeHandler(server);
  expectTypeOf(node).parameters.toEqualTypeOf<
    [import('node:http').IncomingMessage, import('node:http').ServerResponse, ((error?: unknown) => void)?]
  >();
  // @ts-expect-error the listener's port is no handler option: the application owns the socket
  transport.createNodeHandler(server, { port: 3000 });
  // @ts-expect-error a session relay forwards node requests: not on the fetch handler
  createFetchHandler(server, { sessionRelay: {} as never });
});
