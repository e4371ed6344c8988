// Configuration from the command line and the environment (@pier/config): typed, validated, and the
// API key masked wherever it is printed. `node dist/main.js --help` lists every option.
import { loadConfig } from '@pier/config';
import { z } from 'zod';

export function readConfig() {
  return loadConfig({
    apiKey: {
      schema: z.string().min(1),
      env: 'API_KEY',
      secret: true,
      description: 'Key for the upstream API (a secret: never printed)',
    },
// #if both
    transport: {
      schema: z.enum(['stdio', 'streamable-http']).default('stdio'),
      env: 'TRANSPORT',
      description: 'How MCP is served',
    },
// #endif
// #if http
    port: {
      schema: z.number().int().min(0).max(65_535).default(3000),
      env: 'PORT',
      description: 'Port to listen on (streamable-http); 0 picks a free one',
    },
// #endif
  });
}
