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
