// The bare SDK v2 handler on node:http, as its documentation mounts it: `createMcpHandler` with a
// per-request factory, adapted with `toNodeHandler`, behind the localhost Host/Origin guards that
// `@modelcontextprotocol/node` shows for plain node:http. Serves 2026-07-28 and stateless 2025-era.
import { createServer } from 'node:http';
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { benchPort, cannedHealth, serveControl } from './common.js';
import { sdkV2Server } from './sdk-v2-server.js';

const handler = createMcpHandler(sdkV2Server);
const mcp = toNodeHandler(handler);
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const server = createServer((req, res) => {
  if (cannedHealth(req, res)) return;
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  // The SDK's structural request type is not written for exactOptionalPropertyTypes.
  void mcp(req as Parameters<typeof mcp>[0], res);
});

serveControl();
server.listen(benchPort(), '127.0.0.1');
