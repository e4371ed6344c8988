// What Express 5 costs by itself: raw.ts's canned answer, served from an Express app (`app.use`, as Pier's
// Express adapter is mounted). The reference for the Express adapter's figure in RESULTS.md.
import { createServer } from 'node:http';
import express from 'express';
import { benchPort, cannedHealth, serveControl } from './common.js';

const CANNED = JSON.stringify({
  result: { content: [{ type: 'text', text: 'hello' }] },
  jsonrpc: '2.0',
  id: 1,
});

const app = express();
app.use((req, res) => {
  if (cannedHealth(req, res)) return;
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(CANNED);
  });
});
serveControl();
createServer(app).listen(benchPort(), '127.0.0.1');
