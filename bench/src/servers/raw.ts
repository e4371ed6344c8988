// The ceiling: node:http answering health and a canned JSON-RPC result on POST /mcp. It reads the
// body (as any real server must) but parses nothing.
import { createServer } from 'node:http';
import { benchPort, cannedHealth, serveControl } from './common.js';

const CANNED = JSON.stringify({
  result: { content: [{ type: 'text', text: 'hello' }] },
  jsonrpc: '2.0',
  id: 1,
});

const server = createServer((req, res) => {
  if (cannedHealth(req, res)) return;
  if (req.method === 'POST' && req.url === '/mcp') {
    req.on('data', () => {});
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(CANNED);
    });
    return;
  }
  res.writeHead(404).end();
});

serveControl();
server.listen(benchPort(), '127.0.0.1');
