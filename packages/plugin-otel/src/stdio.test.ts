// Over stdio, in a child process with the OpenTelemetry SDK registered globally (the plugin's defaults):
// the official SDK stdio client in both eras, its trace carried in params._meta, the session measured.
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';

const VERSION = { modern: '2026-07-28', legacy: '2025-11-25' } as const;
const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'stdio-server.mjs');

interface ExportedSpan {
  name: string;
  kind: number;
  traceId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

describe.each(['modern', 'legacy'] as const)('over stdio, %s era', (era) => {
  it('a tools/call span is a child of the client’s trace, on a pipe; the connection is one session', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client(
      { name: 'otel-stdio', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
    );
    await client.connect(transport);
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const answer = await client.callTool({
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(answer.content).toEqual([{ type: 'text', text: 'hi' }]);
    const spans = async (): Promise<ExportedSpan[]> => {
      for (let waited = 0; waited < 5_000 && !stderr.includes('"tools/call echo"'); waited += 50) {
        await sleep(50);
      }
      return stderr
        .split('\n')
        .filter((line) => line.startsWith('SPAN '))
        .map((line) => JSON.parse(line.slice(5)) as ExportedSpan);
    };
    const call = (await spans()).find((span) => span.name === 'tools/call echo');
    expect(call).toMatchObject({
      kind: SpanKind.SERVER,
      traceId,
      parentSpanId: parentId,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'network.transport': 'pipe',
        'mcp.protocol.version': VERSION[era],
      },
    });
    expect(call?.attributes['network.protocol.name']).toBeUndefined();

    await client.close();
    for (let waited = 0; waited < 10_000 && !stderr.includes('SESSIONS '); waited += 50) await sleep(50);
    const line = stderr.split('\n').find((l) => l.startsWith('SESSIONS '));
    expect(line, stderr).toBeDefined();
    const sessions = JSON.parse(line?.slice('SESSIONS '.length) ?? '[]') as {
      attributes: Record<string, unknown>;
      count: number;
    }[];
    expect(sessions).toEqual([
      {
        attributes: { 'network.transport': 'pipe', 'mcp.protocol.version': VERSION[era] },
        count: 1,
      },
    ]);
  });
});
