// Pier over stdio for the cold-start comparison (cold-start.ts): the echo tool, nothing else.
import { createServer, MCPServer, Tool } from '@pier/core';
import { ECHO_DESCRIPTION, ECHO_INPUT, echo } from './echo-tool.js';

@MCPServer({ name: 'bench-pier', version: '1.0.0' })
class StdioBenchServer {
  @Tool({ description: ECHO_DESCRIPTION, input: ECHO_INPUT })
  echo(args: { text: string }): string {
    return echo(args);
  }
}

await createServer(StdioBenchServer, undefined, { handleSignals: false }).listen({ transport: 'stdio' });
