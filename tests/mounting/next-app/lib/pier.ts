// The application's Pier server, made once per process on the first request: the test's issuer is known
// only when `next start` runs (PIER_TEST_ISSUER), not when `next build` loads this module.
import type { FetchHandler } from '@pier/transport-http/fetch';
import { createFetchHandler } from '@pier/transport-http/fetch';
import { appServer } from '../../src/servers';

let handler: FetchHandler | undefined;

export function pier(): FetchHandler {
  const issuer = process.env.PIER_TEST_ISSUER;
  if (issuer === undefined) throw new Error('PIER_TEST_ISSUER is not set: the test starts next with it');
  handler ??= createFetchHandler(appServer(issuer), { basePath: '/api', sessions: true });
  return handler;
}
