// fastmcp with its httpStream transport and its defaults (sessionful, SSE answers), the same echo
// tool, and its built-in /health endpoint. JavaScript, because it runs from this npm-installed folder.
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { benchPort, serveControl } from '../dist/servers/common.js';

const server = new FastMCP({ name: 'bench-fastmcp', version: '1.0.0' });
server.addTool({
  name: 'echo',
  description: 'Echoes its text',
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => text,
});

serveControl(() => ({ sessions: server.sessions.length }));
await server.start({ transportType: 'httpStream', httpStream: { host: '127.0.0.1', port: benchPort() } });
