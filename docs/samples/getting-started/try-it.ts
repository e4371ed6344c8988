// The server as a client sees it, without a terminal: @pier/testing connects the official SDK client
// in memory (no port), here as a 2026-07-28 client.
import { createServer } from '@pier/core';
import { connect } from '@pier/testing';
import { AppServer } from './server.js';

const server = createServer(
  AppServer,
  { apiKey: 'dev-only-key' },
  { logLevel: 'warn', handleSignals: false },
);
const { client, protocolVersion, close } = await connect(server);

console.log('protocol', protocolVersion);
console.log(
  'tools',
  (await client.listTools()).tools.map((tool) => tool.name),
);
console.log((await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).content);
console.log((await client.readResource({ uri: 'about://server' })).contents);
console.log((await client.getPrompt({ name: 'explain', arguments: { topic: 'MCP' } })).messages);
await close();
