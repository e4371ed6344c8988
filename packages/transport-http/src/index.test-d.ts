import type { HttpListenOptions, HttpTransportModule, RunningTransport } from '@pier/core';
import { expectTypeOf, test } from 'vitest';
import type { HttpTransportError, HttpTransportErrorCode } from './index.js';
import * as transport from './index.js';

test('the package is the module core loads for listen({ transport: "streamable-http" })', () => {
  expectTypeOf(transport).toMatchTypeOf<HttpTransportModule>();
  expectTypeOf(transport.startHttpTransport).parameter(1).toEqualTypeOf<HttpListenOptions>();
  expectTypeOf(transport.startHttpTransport).returns.toEqualTypeOf<Promise<RunningTransport>>();
});

test('errors carry a stable code to branch on', () => {
  expectTypeOf<HttpTransportError['code']>().toEqualTypeOf<HttpTransportErrorCode>();
  expectTypeOf<HttpTransportErrorCode>().toEqualTypeOf<'HTTP_OPTIONS_INVALID' | 'HTTP_LISTEN_FAILED'>();
  expectTypeOf<HttpTransportError>().toMatchTypeOf<Error>();
});

test('options are checked at compile time', () => {
  // @ts-expect-error ports are numbers
  transport.startHttpTransport({} as never, { port: '3000' });
  // @ts-expect-error cors needs its origins
  transport.startHttpTransport({} as never, { cors: { maxAgeSeconds: 60 } });
});
