import { createNodeHandler } from '@pier/transport-http';
import express from 'express';
import { weatherServer } from './weather.js';

export const mcp = createNodeHandler(weatherServer());

export const app = express();
app.get('/hello', (_req, res) => {
  res.json({ hello: 'from express' });
});
// Before any body parser: Pier reads the body itself, under its own limit. Express strips `/api`, so
// no basePath: MCP at /api/mcp, health at /api/health/live and /api/health/ready.
app.use('/api', mcp);

// app.listen(3000);
