// classifyEra decides everyday messages without a schema library and hands the rest to the SDK's own
// classifier: held here to the SDK's verdict (era, refusal status and code) over a table of bodies and
// headers that covers both fast paths and their edges.
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { classifyEra } from './classify.js';

const claim = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
const envelope = { ...claim, 'io.modelcontextprotocol/clientCapabilities': {} };
const fullEnvelope = {
  ...envelope,
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/logLevel': 'info',
};

const bodies: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
  { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: 3 } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: claim } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: fullEnvelope } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...envelope, progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...envelope, progressToken: {} } } },
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: { ...envelope, 'io.modelcontextprotocol/logLevel': 'loud' } },
  },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: envelope } },
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
  },
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': 42 } },
  },
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: claim } },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: envelope, requestId: 1 } },
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: envelope, protocolVersion: '2025-11-25' } },
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'no' } },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', result: {} },
  { jsonrpc: '2.0', id: {}, method: 'tools/list' },
  { jsonrpc: '2.0', id: null, method: 'tools/list' },
  { jsonrpc: '2.0', id: 1e300, method: 'tools/list' },
  { jsonrpc: '1.0', id: 1, method: 'tools/list' },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: true },
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] },
  { id: 1, method: 'tools/list' },
  [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }],
  [],
  'tools/list',
];
const versions = [undefined, '2025-11-25', '2025-06-18', '2026-07-28', '2024-01-01', ' 2025-11-25', 'x'];
const methods = [undefined, 'tools/list', 'tools/call'];

describe('classifyEra', () => {
  it.each(bodies.map((body) => [JSON.stringify(body), body]))(
    'agrees with the SDK’s classifier: %s',
    (_label, body) => {
      for (const version of versions) {
        for (const method of methods) {
          const headers = (name: string) =>
            name === 'mcp-protocol-version'
              ? version
              : name === 'mcp-method'
                ? method
                : name === 'mcp-name'
                  ? 'echo'
                  : undefined;
          const sdk = classifyInboundRequest({
            httpMethod: 'POST',
            body,
            ...(version !== undefined && { protocolVersionHeader: version }),
            ...(method !== undefined && { mcpMethodHeader: method }),
            mcpNameHeader: 'echo',
          });
          const ours = classifyEra({ body, headers });
          const where = `${JSON.stringify(body)} with version ${version} and method ${method}`;
          if (sdk.kind === 'reject') {
            expect('refused' in ours ? ours.refused : ours, where).toEqual({
              status: sdk.httpStatus,
              error: {
                code: sdk.code,
                message: sdk.message,
                ...(sdk.data !== undefined && { data: sdk.data }),
              },
            });
          } else if (sdk.kind === 'legacy') {
            expect('era' in ours ? ours.era : ours, where).toBe('legacy');
          } else if ('era' in ours) {
            // A modern request is also checked against its standard headers, which the SDK's entry does next.
            expect(ours.era, where).toBe('modern');
          } else {
            expect(ours.refused.status, where).toBe(400);
          }
        }
      }
    },
  );

  it('reads a modern request’s envelope, its client and log level', () => {
    const outcome = classifyEra({
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: fullEnvelope } },
    });
    expect(outcome).toEqual({
      era: 'modern',
      envelope: {
        protocolVersion: '2026-07-28',
        clientCapabilities: {},
        clientInfo: { name: 'c', version: '1' },
        logLevel: 'info',
      },
    });
  });

  it('refuses a modern request over HTTP without its standard headers, with -32020', () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: envelope } };
    const missing = classifyEra({ body, headers: () => undefined });
    expect(missing).toMatchObject({ refused: { status: 400, error: { code: -32020 } } });
    const wrongName = classifyEra({
      body,
      headers: (name) =>
        ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'other' })[name],
    });
    expect(wrongName).toMatchObject({
      refused: { status: 400, error: { code: -32020, data: { mismatch: { header: 'other' } } } },
    });
    const encoded = classifyEra({
      body,
      headers: (name) =>
        ({
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': '=?base64?ZWNobw==?=',
        })[name],
    });
    expect(encoded).toMatchObject({ era: 'modern' });
  });
});
