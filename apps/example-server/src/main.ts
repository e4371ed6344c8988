// Placeholder until the example app lands: proves the start command end to end.
import { createServer } from 'node:http';

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"placeholder"}');
});
server.listen(3000, '127.0.0.1', () => {
  process.stderr.write('example-server listening on http://127.0.0.1:3000/mcp\n');
});
process.on('SIGTERM', () => server.close());
process.on('SIGINT', () => server.close());
