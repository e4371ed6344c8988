// app/api/[...pier]/route.ts: every path below /api is Pier's (MCP at /api/mcp, health at /api/health/…).
import { createFetchHandler } from '@pier/transport-http/fetch';
import { weatherServer } from '../weather.js'; // in your app: import { weatherServer } from '@/lib/weather'

const mcp = createFetchHandler(weatherServer(), {
  basePath: '/api',
  allowedHosts: ['app.example.com'], // the name your app is served at
});

export const GET = mcp.fetch;
export const POST = mcp.fetch;
export const DELETE = mcp.fetch;
export const OPTIONS = mcp.fetch;
