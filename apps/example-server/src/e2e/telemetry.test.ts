// The app's telemetry switches: METRICS=true serves /metrics, OTEL_EXPORTER_OTLP_ENDPOINT pushes traces and
// metrics over OTLP/HTTP (to a collector the test stands in for), and neither is on by default.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, startHttpApp } from './test-app.js';
import { closeClients, connectHttp } from './test-clients.js';

const TEST_TIMEOUT_MS = 30_000;

const collectors: Server[] = [];
afterEach(async () => {
  await closeClients();
  await cleanUp();
  await Promise.all(collectors.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** An OTLP/HTTP collector stand-in: keeps every JSON body posted to /v1/traces and /v1/metrics. */
async function startCollector(): Promise<{ url: string; received: Map<string, string[]> }> {
  const received = new Map<string, string[]>([
    ['/v1/traces', []],
    ['/v1/metrics', []],
  ]);
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      received.get(req.url ?? '')?.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  collectors.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

describe('telemetry', () => {
  it(
    'serves /metrics only with METRICS=true, with the tool-call histogram',
    async () => {
      const off = await startHttpApp();
      expect((await fetch(new URL('/metrics', off.origin))).status).toBe(404);

      const on = await startHttpApp({ env: { METRICS: 'true' } });
      const { client } = await connectHttp('v2 auto', on.url);
      await client.callTool({ name: 'list_notes', arguments: {} });
      const answer = await fetch(new URL('/metrics', on.origin));
      expect(answer.status).toBe(200);
      expect(await answer.text()).toMatch(
        /^mcp_server_operation_duration_seconds_count\{[^}]*gen_ai_tool_name="list_notes"[^}]*\} 1$/m,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'pushes the spans and metrics to OTEL_EXPORTER_OTLP_ENDPOINT, flushed on shutdown',
    async () => {
      const collector = await startCollector();
      const app = await startHttpApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
      const { client } = await connectHttp('v2 auto', app.url);
      await client.callTool({ name: 'list_notes', arguments: {} });
      await closeClients();
      app.child.kill('SIGTERM');
      expect(await app.exited).toEqual({ code: 0, signal: null });
      const traces = collector.received.get('/v1/traces')?.join('\n') ?? '';
      const metrics = collector.received.get('/v1/metrics')?.join('\n') ?? '';
      expect(traces).toContain('"name":"tools/call list_notes"');
      expect(traces).toContain('"stringValue":"pier-notes"');
      expect(metrics).toContain('"name":"mcp.server.operation.duration"');
    },
    TEST_TIMEOUT_MS,
  );
});
