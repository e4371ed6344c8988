// The bare SDK v2 over stdio for the cold-start comparison (cold-start.ts): one McpServer with the echo
// tool on the SDK's StdioServerTransport, as its documentation shows.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';
import { ECHO_DESCRIPTION } from './echo-tool.js';

const server = new McpServer({ name: 'bench-sdk-v2', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: ECHO_DESCRIPTION, inputSchema: z.object({ text: z.string() }) },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
