import { createServer, defineServer } from '@pier/core';
import { connect } from '@pier/testing';
import { httpTransport } from '@pier/transport-http';
import { auditPlugin } from './audit-plugin.js';

const server = createServer(defineServer({ name: 'demo', version: '1.0.0', plugins: [auditPlugin()] }), {
  logLevel: 'error',
  handleSignals: false,
});
const { url } = await server.listen(httpTransport({ port: 0 }));

const { client, close } = await connect(url);
await client.listTools();
console.log((await client.callTool({ name: 'audit_log', arguments: {} })).content);
const audit = await fetch(new URL('/audit', url));
console.log(audit.status, await audit.json());
await close();
await server.close();
