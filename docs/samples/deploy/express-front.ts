import { createServer } from 'node:http';
import { createNodeHandler } from '@pier/transport-http';
import express from 'express';
import { weatherServer } from './weather.js';

const mcp = createNodeHandler(weatherServer());
const app = express();
app.get('/hello', (_req, res) => {
  res.json({ hello: 'from express' });
});

// Pier answers its own paths (/mcp, /health/…) before Express sees the request; every other path goes to
// the app. Express's middleware does not run on Pier's answers.
createServer((req, res) => mcp(req, res, () => app(req, res))).listen(3000, '127.0.0.1');
