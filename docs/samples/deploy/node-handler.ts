// Pier inside a node:http server of your own: the listener's request handling, your socket.
import { createServer } from 'node:http';
import { createNodeHandler } from '@pier/transport-http';
import { weatherServer } from './weather.js';

const mcp = createNodeHandler(weatherServer());
createServer((req, res) => {
  if (req.url === '/hello') return void res.end('hello');
  mcp(req, res); // no `next`: paths that are not Pier's get its JSON 404
}).listen(3000, '127.0.0.1');
