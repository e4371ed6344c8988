// The Pier server, made from the settings: the declaration in server.ts and its plugins.
import { type CreateServerOptions, createServer, type PierServer } from '@pier/core';
// #if health
import { healthPlugin } from '@pier/plugin-health';
// #endif
// #if decorators
import { AppServer, type Settings } from './server.js';
// #else
import { appServer, type Settings } from './server.js';
// #endif

export function pierServer(settings: Settings, options: CreateServerOptions = {}): PierServer {
// #if health
  // Readiness and liveness for a load balancer or Kubernetes: add a check per dependency.
  const health = healthPlugin({
    checks: [{ name: 'self', critical: true, check: async () => ({ status: 'healthy' }) }],
  });
  const plugins = [health, ...(options.plugins ?? [])];
// #if decorators
  return createServer(AppServer, settings, { ...options, plugins });
// #else
  return createServer(appServer(settings), { ...options, plugins });
// #endif
// #else
// #if decorators
  return createServer(AppServer, settings, options);
// #else
  return createServer(appServer(settings), options);
// #endif
// #endif
}
