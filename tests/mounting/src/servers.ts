// The Pier servers the tests mount: one an application would deploy (auth, health, metrics, a tool that
// reports progress) and one for the bad-input table (no auth in front of the checks it exercises).
import { createServer, defineServer, defineTool, type PierServer } from '@pier/core';
import { authPlugin, jwt } from '@pier/plugin-auth';
import { healthPlugin } from '@pier/plugin-health';
import { otelPlugin } from '@pier/plugin-otel';
import * as z from 'zod';

/** The audience of the app server's tokens: its MCP endpoint as clients are told it is. */
export const RESOURCE = 'http://127.0.0.1/api/mcp';

const echo = defineTool({
  name: 'echo',
  description: 'Says it back',
  input: { text: z.string() },
  handler: async ({ text }) => `echo: ${text}`,
});

const count = defineTool({
  name: 'count',
  description: 'Counts to three, reporting progress',
  input: {},
  handler: async (_args, ctx) => {
    for (let step = 1; step <= 3; step++) await ctx.reportProgress(step, { total: 3 });
    return 'counted';
  },
});

/** Auth (jwt against `issuer`), health and /metrics, as an application would deploy it. */
export function appServer(issuer: string): PierServer {
  return createServer(
    defineServer({
      name: 'mounted',
      version: '1.0.0',
      plugins: [
        healthPlugin({ checks: [] }),
        authPlugin({ resource: RESOURCE, authorizationServers: [issuer], verifier: jwt() }),
        otelPlugin({ prometheus: true }),
      ],
      tools: [echo, count],
    }),
    { handleSignals: false, logLevel: 'warn' },
  );
}

/** Health and one tool, no auth: what the bad-input table is run against. */
export function tableServer(): PierServer {
  return createServer(
    defineServer({ name: 'table', version: '1.0.0', plugins: [healthPlugin({ checks: [] })], tools: [echo] }),
    {
      handleSignals: false,
      logLevel: 'error',
    },
  );
}
